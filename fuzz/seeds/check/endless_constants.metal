#include <metal_stdlib>
using namespace metal;
constexpr int spin(int n) { while (true) { n = n + 1; } return n; }
constexpr int loop(int n) { int s = 0; for (int i = 0; i < n; ++i) s += i; return s; }
static_assert(spin(1) == 0, "never");
static_assert(loop(100000000) > 0, "long");
constexpr int rec(int n) { return rec(n + 1); }
constant int r = rec(0);
kernel void k(device int *o [[buffer(0)]]) { int a[loop(3)]; o[0] = a[0]; }
