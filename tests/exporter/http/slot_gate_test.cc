// SlotGate: the scrape slots shared fairly among client addresses, without sockets.
#include "exporter/http/slot_gate.h"

#include <gtest/gtest.h>

#include <vector>

namespace scx {
namespace {

TEST(SlotGateTest, OneAddressAloneMayTakeEverySlotAndNoMore) {
  SlotGate gate(3);
  for (int i = 0; i < 3; ++i) EXPECT_NE(gate.Acquire("10.0.0.1").ticket, 0u);
  const SlotGate::Decision refused = gate.Acquire("10.0.0.1");
  EXPECT_EQ(refused.ticket, 0u);
  EXPECT_EQ(refused.preempted, 0u);
  EXPECT_EQ(gate.in_use(), 3);
}

TEST(SlotGateTest, ANewcomerTakesTheOldestSlotOfTheGreediestAddress) {
  SlotGate gate(4);
  const SlotGate::Ticket first = gate.Acquire("slow").ticket;
  for (int i = 0; i < 3; ++i) ASSERT_NE(gate.Acquire("slow").ticket, 0u);
  const SlotGate::Decision scraper = gate.Acquire("prometheus");
  EXPECT_NE(scraper.ticket, 0u);
  EXPECT_EQ(scraper.preempted, first);
  EXPECT_EQ(gate.in_use(), 4);
  EXPECT_EQ(gate.HeldBy("slow"), 3);
  // The preempted holder's own release later changes nothing.
  gate.Release(first);
  EXPECT_EQ(gate.in_use(), 4);
  // Two addresses share 4 slots: 2 each; "slow" is still above its share.
  EXPECT_NE(gate.Acquire("prometheus").ticket, 0u);
  EXPECT_EQ(gate.HeldBy("prometheus"), 2);
  EXPECT_EQ(gate.HeldBy("slow"), 2);
  // Now both hold their share: nobody is preempted any more.
  EXPECT_EQ(gate.Acquire("prometheus").ticket, 0u);
  EXPECT_EQ(gate.Acquire("slow").ticket, 0u);
}

TEST(SlotGateTest, NoPreemptionWhenEveryAddressHoldsItsShare) {
  SlotGate gate(2);
  ASSERT_NE(gate.Acquire("a").ticket, 0u);
  ASSERT_NE(gate.Acquire("b").ticket, 0u);
  // Three addresses share two slots: a share of one each, and a and b hold one.
  const SlotGate::Decision c = gate.Acquire("c");
  EXPECT_EQ(c.ticket, 0u);
  EXPECT_EQ(c.preempted, 0u);
}

TEST(SlotGateTest, ReleasedSlotsAreTakenAgain) {
  SlotGate gate(1);
  const SlotGate::Ticket ticket = gate.Acquire("a").ticket;
  ASSERT_NE(ticket, 0u);
  EXPECT_EQ(gate.Acquire("a").ticket, 0u);
  gate.Release(ticket);
  EXPECT_EQ(gate.in_use(), 0);
  EXPECT_EQ(gate.HeldBy("a"), 0);
  EXPECT_NE(gate.Acquire("b").ticket, 0u);
  gate.Release(0);  // no-op
  EXPECT_EQ(gate.in_use(), 1);
}

TEST(SlotGateTest, ZeroCapacityAdmitsEverything) {
  SlotGate gate(0);
  std::vector<SlotGate::Ticket> tickets;
  for (int i = 0; i < 100; ++i) {
    const SlotGate::Decision decision = gate.Acquire("a");
    EXPECT_NE(decision.ticket, 0u);
    EXPECT_EQ(decision.preempted, 0u);
    tickets.push_back(decision.ticket);
  }
  for (SlotGate::Ticket ticket : tickets) gate.Release(ticket);
  EXPECT_EQ(gate.in_use(), 0);
}

TEST(SlotGateTest, FortySlowReadersCannotStarveAScraper) {
  // --web.max-requests=40 held by one address of slow readers: each new scrape from
  // another address preempts one of them, and the scraper keeps getting a slot.
  SlotGate gate(40);
  for (int i = 0; i < 40; ++i) ASSERT_NE(gate.Acquire("127.0.0.1").ticket, 0u);
  for (int scrape = 0; scrape < 100; ++scrape) {
    const SlotGate::Decision decision = gate.Acquire("127.0.0.2");
    ASSERT_NE(decision.ticket, 0u) << scrape;
    gate.Release(decision.ticket);
    // The slow reader that was preempted reconnects and takes the slot back.
    if (decision.preempted != 0) {
      ASSERT_NE(gate.Acquire("127.0.0.1").ticket, 0u);
    }
  }
}

}  // namespace
}  // namespace scx
