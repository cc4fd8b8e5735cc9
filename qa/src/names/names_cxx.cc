// names_cxx.cc - the C++ program of the names corpus: templates, lambdas,
// a namespace and an operator, whose names are long once demangled.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <vector>

namespace names {
template <typename T> struct Acc {
	T total{};
	__attribute__((noinline)) void add(T v) { total += v * v; }
	__attribute__((noinline)) Acc &operator+=(const Acc &o) { total += o.total; return *this; }
};

template <typename T> __attribute__((noinline)) T
sum(const std::vector<T> &v)
{
	Acc<T> a;
	std::for_each(v.begin(), v.end(), [&a](T x) { a.add(x); });
	return a.total;
}
} // namespace names

int
main(int argc, char **argv)
{
	std::vector<long> v(argc > 1 ? std::atoi(argv[1]) : 10, 3);
	std::vector<double> d(v.size(), 1.5);
	std::function<long(long)> f = [](long x) { return x * 7; };
	names::Acc<long> a, b;
	a += b;
	return (names::sum(v) + static_cast<long>(names::sum(d)) + f(argc) + a.total) == 42;
}
