#include <metal_stdlib>
using namespace metal;
template <typename T> struct W { T a; T b; };
using A0 = W<int>;
using A1 = W<A0>; using A2 = W<A1>; using A3 = W<A2>; using A4 = W<A3>; using A5 = W<A4>;
using A6 = W<A5>; using A7 = W<A6>; using A8 = W<A7>; using A9 = W<A8>; using A10 = W<A9>;
using A11 = W<A10>; using A12 = W<A11>; using A13 = W<A12>; using A14 = W<A13>; using A15 = W<A14>;
using A16 = W<A15>; using A17 = W<A16>; using A18 = W<A17>; using A19 = W<A18>; using A20 = W<A19>;
using A21 = W<A20>; using A22 = W<A21>; using A23 = W<A22>; using A24 = W<A23>; using A25 = W<A24>;
using A26 = W<A25>; using A27 = W<A26>; using A28 = W<A27>; using A29 = W<A28>; using A30 = W<A29>;
using A31 = W<A30>; using A32 = W<A31>; using A33 = W<A32>; using A34 = W<A33>; using A35 = W<A34>;
using A36 = W<A35>; using A37 = W<A36>; using A38 = W<A37>; using A39 = W<A38>; using A40 = W<A39>;

kernel void k(device int *o [[buffer(0)]]) { A40 x; o[0] = x.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a; }
static_assert(sizeof(A40) > 0, "big");
