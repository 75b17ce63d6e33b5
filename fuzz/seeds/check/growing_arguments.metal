#include <metal_stdlib>
using namespace metal;
template <typename T> int g(T x);
template <typename T> int h(T x) { return g(x) + g(vec<T, 2>(x).x); }
template <typename T> int g(T x) { return h(x * 2); }
template <typename T, int N> struct Grow { using type = typename Grow<vec<T,2>, N - 1>::type; };
template <typename T> struct Grow<T, 0> { using type = T; };
template <typename T> int p(T x) { return p(W2<T>{x}); }
template <typename T> struct W2 { T v; };
kernel void k(device int *o [[buffer(0)]]) { o[0] = h(1) + p(2); typename Grow<int, 5000>::type z; }
