// The text format writer against the reference: prometheus-cpp's own TextSerializer
// (Debian 12's 1.0.1, which the exporter used before it wrote the text itself). Random
// families with odd HELP texts, label values and values must come out byte for byte
// as the library writes them. Two intended differences, each pinned by
// prometheus_text_test instead: NaN (the library writes "Nan", the format says "NaN"),
// and HELP texts, which the library writes unescaped where the format wants a
// backslash as "\\" and a newline as "\n" (a newline breaks the line); the HELP
// texts here have neither, as none of the exporter's have.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include "exporter/metrics/prometheus_text.h"

namespace scx {
namespace {

constexpr const char* kPieces[] = {"a",
                                   "brain",
                                   "\\",
                                   "\"",
                                   "\n",
                                   "é",
                                   "_",
                                   "1",
                                   " ",
                                   "{}",
                                   "=",
                                   ",",
                                   "sk_m1nd_candidate",
                                   "\xE2\x80\xA6"};

std::string RandomText(std::mt19937_64* rng, int max_pieces) {
  std::string text;
  const int pieces = static_cast<int>((*rng)() % (max_pieces + 1));
  for (int i = 0; i < pieces; ++i) text += kPieces[(*rng)() % std::size(kPieces)];
  return text;
}

double RandomValue(std::mt19937_64* rng) {
  switch ((*rng)() % 4) {
    case 0:
      return static_cast<double>((*rng)() % 100000);
    case 1:
      return std::ldexp(static_cast<double>((*rng)() >> 11), -static_cast<int>((*rng)() % 60));
    case 2: {
      double value;
      const std::uint64_t bits = (*rng)();
      std::memcpy(&value, &bits, sizeof(value));
      return std::isnan(value) ? 0.25 : value;  // infinities included
    }
    default:
      return 1796003827.0 + static_cast<double>((*rng)() % 1000000) / 1e6;
  }
}

TEST(PrometheusTextReferenceTest, FamiliesAreWrittenAsPrometheusCppWritesThem) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    prometheus::MetricFamily family;
    family.name = "scx_family_" + std::to_string(round);
    family.help = RandomText(&rng, 6);
    family.help.erase(std::remove_if(family.help.begin(), family.help.end(),
                                     [](char c) { return c == '\n' || c == '\\'; }),
                      family.help.end());
    const bool counter = rng() % 2 == 0;
    family.type = counter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge;

    std::string ours;
    FamilyWriter writer(
        {family.name, family.help, counter ? MetricType::kCounter : MetricType::kGauge}, &ours,
        nullptr);
    const int samples = 1 + static_cast<int>(rng() % 5);
    for (int s = 0; s < samples; ++s) {
      // Label values as the exporter passes them: valid UTF-8, under the cap.
      const std::string brain = RandomText(&rng, 5) + std::to_string(s);
      const std::string slug = RandomText(&rng, 3);
      const double value = RandomValue(&rng);
      prometheus::ClientMetric metric;
      metric.label = {{"brain", brain}, {"found_slug", slug}};
      (counter ? metric.counter.value : metric.gauge.value) = value;
      family.metric.push_back(metric);
      writer.Add({{"brain", brain}, {"found_slug", slug}}, value);
    }
    std::ostringstream reference;
    prometheus::TextSerializer().Serialize(reference, {family});
    ASSERT_EQ(ours, reference.str()) << "round " << round;
  }
}

}  // namespace
}  // namespace scx
