// Typed parameters: a ParamTable binds each declaration to a member of the model's struct; reading fills every
// member, a wrong binding is refused where the table is built, and an included component keeps its own names.
#include <gtest/gtest.h>

#include "sim/core/params.hpp"

namespace unit_params {

using namespace vgpusim;

namespace {

enum class Order { First, Second };
struct Inner {
  double rate;
};
struct Toy {
  double speed;
  int count;
  bool on;
  std::string word;
  Order order;
  std::array<double, 3> per;
  Inner inner;
};

const ParamTable<Inner>& inner_table() {
  static const ParamTable<Inner> t = ParamTable<Inner>().add(
      &Inner::rate, number_param("inner", "rate", units::Dim::Ratio, 0.25, 0, 1, "inner rate", "test"));
  return t;
}

const ParamTable<Toy>& toy_table() {
  static const ParamTable<Toy> t =
      ParamTable<Toy>()
          .add(&Toy::speed, number_param("toy", "speed", units::Dim::Time, 2e-3, 0, 1, "speed", "test"))
          .add(&Toy::count, whole_param("toy", "count", 7, 1, 100, "count", "test"))
          .add(&Toy::on, flag_param("toy", "on", true, "on", "test"))
          .add(&Toy::word, text_param("toy", "word", "hello", "word", "test"))
          .add(&Toy::order, choice_param("toy", "order", {"first", "second"}, "order", "test"))
          .add(&Toy::per, 2, number_param("toy", "per_two", units::Dim::Count, 9, 0, 10, "per", "test"))
          .include(&Toy::inner, inner_table());
  return t;
}

}  // namespace

TEST(ParamTable, DefaultsFillEveryBoundMember) {
  const Toy d = toy_table().defaults();
  EXPECT_EQ(d.speed, 2e-3);
  EXPECT_EQ(d.count, 7);
  EXPECT_TRUE(d.on);
  EXPECT_EQ(d.word, "hello");
  EXPECT_EQ(d.order, Order::First);
  EXPECT_EQ(d.per[2], 9);
  EXPECT_EQ(d.per[0], 0);  // not bound
  EXPECT_EQ(d.inner.rate, 0.25);
  // The included component's parameter keeps its owner.
  ASSERT_EQ(toy_table().specs().size(), 7u);
  EXPECT_EQ(toy_table().specs().back().qualified(), "inner.rate");
  EXPECT_EQ(toy_table().specs()[1].type_text(), "integer");
  EXPECT_EQ(toy_table().specs()[1].range_text(), "1 to 100");
}

TEST(ParamTable, ReadsValuesAndOverridesAndWritesThemBack) {
  ParamValues v = ParamValues::defaults(toy_table().specs());
  v.set_word("order", "second");
  v.set("count", 3);
  const Toy t = toy_table().read(v);
  EXPECT_EQ(t.order, Order::Second);
  EXPECT_EQ(t.count, 3);
  const Toy o = toy_table().with({{"toy.speed", 0.5}, {"inner.rate", 0.75}, {"other.speed", 1}});
  EXPECT_EQ(o.speed, 0.5);
  EXPECT_EQ(o.inner.rate, 0.75);
  const ParamValues back = toy_table().values(t);
  EXPECT_EQ(back.word("order"), "second");
  EXPECT_EQ(back.get("count"), 3);
  EXPECT_EQ(back.get("rate"), 0.25);
}

TEST(ParamTable, AWrongBindingIsRefusedWhenTheTableIsBuilt) {
  EXPECT_THROW(ParamTable<Toy>().add(&Toy::speed, flag_param("toy", "speed", false, "", "")), std::logic_error);
  EXPECT_THROW(ParamTable<Toy>().add(&Toy::count, number_param("toy", "count", units::Dim::Count, 1, 0, 9, "", "")),
               std::logic_error);
  EXPECT_THROW(ParamTable<Toy>().add(&Toy::per, 3, number_param("toy", "x", units::Dim::Count, 1, 0, 9, "", "")),
               std::logic_error);
  EXPECT_THROW(ParamTable<Toy>()
                   .add(&Toy::speed, number_param("toy", "speed", units::Dim::Time, 1, 0, 9, "", ""))
                   .add(&Toy::per, 0, number_param("toy", "speed", units::Dim::Time, 1, 0, 9, "", "")),
               std::logic_error);
  // A value that is none of a choice's words cannot reach an enum member.
  ParamValues v = ParamValues::defaults(toy_table().specs());
  v.set_word("order", "third");
  EXPECT_THROW(toy_table().read(v), std::logic_error);
}

}  // namespace unit_params
