// A tiny blocking HTTP/1.1 client for tests.
#include "tests/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

namespace scx {
namespace testing {

namespace {

using Clock = std::chrono::steady_clock;

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

// Closes the socket when the exchange ends.
class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Waits for `events` on `fd` until `deadline`; false on timeout or error.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, events, 0};
  return poll(&p, 1, static_cast<int>(left.count())) == 1;
}

bool SendAll(int fd, const std::string& data, Clock::time_point deadline) {
  size_t sent = 0;
  while (sent < data.size()) {
    if (!WaitFor(fd, POLLOUT, deadline)) return false;
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Appends what arrives to `buffer`; 0 at end of stream, -1 on timeout or error.
ssize_t ReceiveSome(int fd, std::string* buffer, Clock::time_point deadline) {
  if (!WaitFor(fd, POLLIN, deadline)) return -1;
  char chunk[16384];
  ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
  if (n > 0) buffer->append(chunk, static_cast<size_t>(n));
  return n;
}

std::string FormatRequest(const HttpClientRequest& request) {
  std::string text = request.method + " " + request.path + " HTTP/1.1\r\n";
  text += "Host: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& [name, value] : request.headers) text += name + ": " + value + "\r\n";
  if (!request.body.empty()) {
    text += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
  }
  return text + "\r\n" + request.body;
}

// Parses the status line and headers in `head` (without the blank line).
bool ParseHead(const std::string& head, HttpResult* result) {
  size_t line_end = head.find("\r\n");
  std::string status_line = head.substr(0, line_end);
  if (status_line.compare(0, 5, "HTTP/") != 0 || status_line.find(' ') == std::string::npos) {
    return false;
  }
  result->status = std::atoi(status_line.c_str() + status_line.find(' ') + 1);
  while (line_end != std::string::npos) {
    size_t begin = line_end + 2;
    line_end = head.find("\r\n", begin);
    std::string line =
        head.substr(begin, line_end == std::string::npos ? line_end : line_end - begin);
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string& value = result->headers[Lower(Trim(line.substr(0, colon)))];
    value += (value.empty() ? "" : ", ") + Trim(line.substr(colon + 1));
  }
  return result->status > 0;
}

HttpResult Failure(const std::string& error) {
  HttpResult result;
  result.error = error;
  return result;
}

}  // namespace

std::string HttpResult::Header(const std::string& name) const {
  auto it = headers.find(Lower(name));
  return it == headers.end() ? "" : it->second;
}

int ConnectLocal(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string RawExchange(int port, const std::string& request, int timeout_ms) {
  Socket socket(ConnectLocal(port));
  if (socket.fd() < 0) return "";
  send(socket.fd(), request.data(), request.size(), MSG_NOSIGNAL);
  std::string received;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{socket.fd(), POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) != 1) break;
    char chunk[4096];
    const ssize_t n = recv(socket.fd(), chunk, sizeof(chunk), 0);
    if (n <= 0) break;
    received.append(chunk, static_cast<size_t>(n));
  }
  return received;
}

HttpResult HttpFetch(int port, const HttpClientRequest& request) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(request.timeout_ms);
  Socket socket(ConnectLocal(port));
  if (socket.fd() < 0) return Failure("cannot connect to port " + std::to_string(port));
  if (!SendAll(socket.fd(), FormatRequest(request), deadline)) return Failure("send failed");

  std::string data;
  size_t head_end;
  while ((head_end = data.find("\r\n\r\n")) == std::string::npos) {
    if (ReceiveSome(socket.fd(), &data, deadline) <= 0) return Failure("no complete response head");
  }
  HttpResult result;
  if (!ParseHead(data.substr(0, head_end), &result)) return Failure("malformed response head");
  result.body = data.substr(head_end + 4);

  const bool no_body = request.method == "HEAD" || result.status == 204 || result.status == 304 ||
                       result.status < 200;
  const std::string length = result.Header("Content-Length");
  if (no_body) {
    result.body.clear();
  } else if (!length.empty()) {
    const size_t expected = std::strtoul(length.c_str(), nullptr, 10);
    while (result.body.size() < expected) {
      if (ReceiveSome(socket.fd(), &result.body, deadline) <= 0) return Failure("short body");
    }
    result.body.resize(expected);
  } else {
    ssize_t n;
    while ((n = ReceiveSome(socket.fd(), &result.body, deadline)) > 0) {
    }
    if (n < 0) return Failure("body did not end");
  }
  result.ok = true;
  return result;
}

HttpResult HttpGet(int port, const std::string& path,
                   const std::map<std::string, std::string>& headers, const std::string& method) {
  HttpClientRequest request;
  request.method = method;
  request.path = path;
  request.headers = headers;
  return HttpFetch(port, request);
}

std::string BasicAuthorization(const std::string& user, const std::string& password) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string in = user + ":" + password;
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    unsigned chunk = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) chunk |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) chunk |= static_cast<unsigned char>(in[i + 2]);
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[chunk & 63] : '=';
  }
  return "Basic " + out;
}

}  // namespace testing
}  // namespace scx
