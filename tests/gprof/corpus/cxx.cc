// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C++ names: namespaces, a class template instantiated twice, overloads,
 * a virtual method and an operator.  Flat profile, graph and index show
 * them demangled by default; --no-demangle shows the raw names, and the
 * index and the ties are ordered by the raw (mangled) names either way.
 */
#include <cstdio>

namespace work {
static volatile unsigned long sink;

template <typename T> class Acc {
public:
	T total = 0;
	void add(T v, unsigned long n)
	{
		for (unsigned long i = 0; i < n; i++) {
			total += v;
			sink += i;
		}
	}
};

unsigned long calc(int n)
{
	unsigned long s = 0;
	for (int i = 0; i < n; i++)
		s += i, sink += s;
	return s;
}

double calc(double x)
{
	for (int i = 0; i < 800000; i++)
		x = x * 0.999 + 1.0, sink += i;
	return x;
}

namespace shapes {
struct Shape {
	virtual ~Shape() {}
	virtual unsigned long area(unsigned long n) const = 0;
};

struct Square : Shape {
	unsigned long area(unsigned long n) const override
	{
		for (unsigned long i = 0; i < n; i++)
			sink += i * i;
		return sink;
	}
};

struct Vec {
	long x, y;
	Vec operator+(const Vec &o) const
	{
		sink++;
		return Vec{ x + o.x, y + o.y };
	}
};
} // namespace shapes
} // namespace work

int main()
{
	work::Acc<int> ai;
	work::Acc<double> ad;
	work::shapes::Square sq;
	const work::shapes::Shape &sh = sq;
	work::shapes::Vec v{ 1, 2 }, w{ 0, 0 };

	for (int r = 0; r < 20; r++) {
		ai.add(2, 1600000);
		ad.add(0.5, 800000);
		work::calc(2400000);
		work::calc(1.5);
		sh.area(1200000);
		for (int i = 0; i < 1000; i++)
			w = w + v;
	}
	std::printf("%d %ld\n", ai.total > 0, w.x);
	return 0;
}
