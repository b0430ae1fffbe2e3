// ConnectionTable and its sizing: caps per address and in all, and which waiting
// connections are reclaimed when the workers run short; without sockets.
#include "exporter/http/connection_table.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <string>
#include <vector>

namespace scx {
namespace {

using Admission = ConnectionTable::Admission;
using std::chrono::milliseconds;

const ConnectionTable::Clock::time_point kStart{};

ConnectionCaps Caps(int max_connections, int max_per_address, int reclaim_from) {
  ConnectionCaps caps;
  caps.max_connections = max_connections;
  caps.max_per_address = max_per_address;
  caps.reclaim_from = reclaim_from;
  return caps;
}

TEST(ConnectionTableTest, CapsConnectionsPerAddress) {
  ConnectionTable table(Caps(100, 2, 100));
  EXPECT_EQ(table.Accept(10, "a", kStart).admission, Admission::kAccepted);
  EXPECT_EQ(table.Accept(11, "a", kStart).admission, Admission::kAccepted);
  EXPECT_EQ(table.Accept(12, "a", kStart).admission, Admission::kAddressFull);
  EXPECT_FALSE(table.Contains(12));
  EXPECT_EQ(table.Accept(13, "b", kStart).admission, Admission::kAccepted);
  table.Close(10);
  EXPECT_EQ(table.OpenFrom("a"), 1);
  EXPECT_EQ(table.Accept(12, "a", kStart).admission, Admission::kAccepted);
}

TEST(ConnectionTableTest, ReclaimsTheLongestWaitingOfTheGreediestAddress) {
  ConnectionTable table(Caps(10, 0, 4));
  table.Accept(1, "many", kStart + milliseconds(1));
  table.Accept(2, "many", kStart + milliseconds(2));
  table.Accept(3, "many", kStart + milliseconds(3));
  table.Accept(4, "one", kStart);  // waits longest, but its address holds only one
  const ConnectionTable::AcceptResult result = table.Accept(5, "new", kStart + milliseconds(5));
  EXPECT_EQ(result.admission, Admission::kAccepted);
  ASSERT_EQ(result.reclaim.size(), 1u);
  EXPECT_EQ(result.reclaim[0], 1);
  EXPECT_EQ(table.live(), 4);  // the reclaimed one is still open, but on its way out
  table.Close(1);
  EXPECT_EQ(table.live(), 4);
}

TEST(ConnectionTableTest, ConnectionsInARequestAreNeverReclaimed) {
  ConnectionTable table(Caps(3, 0, 2));
  table.Accept(1, "a", kStart);
  table.Accept(2, "a", kStart);
  table.StartRequest(1);
  table.StartRequest(2);
  ConnectionTable::AcceptResult result = table.Accept(3, "b", kStart);
  EXPECT_EQ(result.admission, Admission::kAccepted);
  EXPECT_TRUE(result.reclaim.empty());
  table.StartRequest(3);
  // Full, and nothing waits: refused.
  result = table.Accept(4, "c", kStart);
  EXPECT_EQ(result.admission, Admission::kServerFull);
  EXPECT_TRUE(result.reclaim.empty());
  // A kept-alive connection waits again once its response is written.
  table.EndRequest(2, kStart + milliseconds(10));
  result = table.Accept(4, "c", kStart + milliseconds(20));
  EXPECT_EQ(result.admission, Admission::kAccepted);
  ASSERT_EQ(result.reclaim.size(), 1u);
  EXPECT_EQ(result.reclaim[0], 2);
}

TEST(ConnectionTableTest, OnlyConnectionsThatWaitedLongEnoughMakeRoomForTheirOwnAddress) {
  ConnectionCaps caps = Caps(10, 0, 1);
  caps.reclaim_after = milliseconds(250);
  ConnectionTable table(caps);
  table.Accept(1, "a", kStart);
  table.Accept(2, "a", kStart + milliseconds(100));
  // Both too young: a newcomer of the same address waits for a worker instead.
  EXPECT_TRUE(table.Accept(3, "a", kStart + milliseconds(200)).reclaim.empty());
  const ConnectionTable::AcceptResult result = table.Accept(4, "a", kStart + milliseconds(300));
  ASSERT_EQ(result.reclaim.size(), 1u);
  EXPECT_EQ(result.reclaim[0], 1);
}

TEST(ConnectionTableTest, ANewcomerFromALesserAddressTakesAYoungConnectionsPlace) {
  ConnectionCaps caps = Caps(3, 0, 3);
  caps.reclaim_after = milliseconds(250);
  ConnectionTable table(caps);
  table.Accept(1, "a", kStart);
  table.Accept(2, "a", kStart + milliseconds(10));
  table.Accept(3, "b", kStart + milliseconds(20));
  // The server is full and every connection is young: an address holding fewer than
  // the greediest still gets in, in place of that address's longest waiting one.
  ConnectionTable::AcceptResult result = table.Accept(4, "c", kStart + milliseconds(30));
  EXPECT_EQ(result.admission, Admission::kAccepted);
  EXPECT_EQ(result.reclaim, std::vector<int>{1});
  table.Close(1);
  // "b" now holds as many as "a": nobody holds more, nothing is old enough, full.
  result = table.Accept(5, "b", kStart + milliseconds(40));
  EXPECT_EQ(result.admission, Admission::kServerFull);
  EXPECT_TRUE(result.reclaim.empty());
}

TEST(ConnectionTableTest, AnAddressHoldingNothingIsNeverRefusedWhileAnotherWaits) {
  // As the flood test's attacker that reopens every 200 ms: its connections never
  // reach reclaim_after, yet every probe from another address is accepted.
  ConnectionCaps caps = Caps(128, 0, 90);
  caps.reclaim_after = milliseconds(250);
  ConnectionTable table(caps);
  int next_id = 0;
  for (int round = 0; round < 20; ++round) {
    const auto now = kStart + milliseconds(round * 200);
    for (int i = 0; i < 200; ++i) {
      const ConnectionTable::AcceptResult result = table.Accept(next_id++, "attacker", now);
      for (int victim : result.reclaim) table.Close(victim);
    }
    const int probe = next_id++;
    const ConnectionTable::AcceptResult result = table.Accept(probe, "scraper", now);
    EXPECT_EQ(result.admission, Admission::kAccepted) << "round " << round;
    for (int victim : result.reclaim) table.Close(victim);
    table.Close(probe);
    ASSERT_LE(table.live(), 128);
  }
}

TEST(ConnectionTableTest, ExcessWaitingConnectionsAreReclaimedOnATimer) {
  ConnectionCaps caps = Caps(100, 0, 3);
  caps.reclaim_after = milliseconds(250);
  ConnectionTable table(caps);
  // Six open at once, as when they all arrived in requests and five have ended.
  for (int i = 0; i < 6; ++i) {
    table.Accept(i, i < 4 ? "a" : "b", kStart);
    table.StartRequest(i);
  }
  for (int i = 0; i < 5; ++i) table.EndRequest(i, kStart);
  EXPECT_TRUE(table.ReclaimExcess(kStart + milliseconds(100)).empty());  // too young
  const std::vector<int> reclaimed = table.ReclaimExcess(kStart + milliseconds(300));
  EXPECT_EQ(reclaimed, (std::vector<int>{0, 1, 2}));  // "a" holds the most
  EXPECT_EQ(table.live(), 3);
}

TEST(ConnectionTableTest, AReclaimedConnectionIsNotPickedTwice) {
  ConnectionTable table(Caps(2, 0, 1));
  table.Accept(1, "a", kStart);
  EXPECT_EQ(table.Accept(2, "b", kStart).reclaim.size(), 1u);  // 1 goes
  table.EndRequest(1, kStart);                                 // no effect once reclaimed
  const ConnectionTable::AcceptResult result = table.Accept(3, "c", kStart);
  ASSERT_EQ(result.reclaim.size(), 1u);
  EXPECT_EQ(result.reclaim[0], 2);
}

TEST(ConnectionTableTest, AReusedSocketNumberReplacesTheStaleEntry) {
  ConnectionTable table(Caps(10, 1, 10));
  table.Accept(7, "a", kStart);
  EXPECT_EQ(table.Accept(7, "a", kStart).admission, Admission::kAccepted);
  EXPECT_EQ(table.OpenFrom("a"), 1);
  table.Close(7);
  table.Close(7);  // unknown now: ignored
  EXPECT_EQ(table.live(), 0);
  EXPECT_EQ(table.OpenFrom("a"), 0);
}

TEST(ConnectionTableTest, AFloodFromManyAddressesLeavesRoomForANewcomer) {
  // 2,000 idle connections from 50 addresses against 1,024 connections (as many
  // workers, the old default): the table
  // never exceeds its cap and the newcomer is accepted.
  ConnectionTable table(CapsFor(1024, 1024, 64));
  for (int i = 0; i < 2000; ++i) {
    const ConnectionTable::AcceptResult result =
        table.Accept(100 + i, "127.0.0." + std::to_string(1 + i % 50), kStart + milliseconds(i));
    EXPECT_EQ(result.admission, Admission::kAccepted) << i;
    for (int victim : result.reclaim) table.Close(victim);
    ASSERT_LE(table.live(), 1024);
  }
  EXPECT_EQ(table.Accept(5000, "10.0.0.1", kStart).admission, Admission::kAccepted);
}

TEST(ConnectionSizingTest, CapsFor) {
  const ConnectionCaps caps = CapsFor(19872, 1024, 64);
  EXPECT_EQ(caps.max_connections, 19872);
  EXPECT_EQ(caps.max_per_address, 64);
  EXPECT_EQ(caps.reclaim_from, 1024 - 64);  // the workers, not the descriptors
  EXPECT_EQ(caps.reclaim_after, std::chrono::milliseconds(250));
  EXPECT_EQ(CapsFor(896, 1024, 0).reclaim_from, 896 - 56);
  EXPECT_EQ(CapsFor(100, 8, 0).reclaim_from, 7);
  EXPECT_EQ(CapsFor(1, 1, 0).reclaim_from, 1);
  EXPECT_EQ(CapsFor(0, 0, -3).max_connections, 1);
  EXPECT_EQ(CapsFor(0, 0, -3).max_per_address, 0);
}

TEST(ConnectionSizingTest, MaxConnectionsStayBelowTheDescriptorLimit) {
  EXPECT_EQ(MaxConnectionsFor(1024, 128), 896);
  EXPECT_EQ(MaxConnectionsFor(65536, 128), 65408);
  EXPECT_EQ(MaxConnectionsFor(100, 128), 1);
  EXPECT_EQ(MaxConnectionsFor(1LL << 62, 128), std::numeric_limits<int>::max());
}

}  // namespace
}  // namespace scx
