#pragma once
#include <metal_stdlib>
#include <simd/simd.h>
#include "common/lighting.h"
#import "Bridging.h"

#define TILE 16
#define SQUARE(x) ((x) * (x))
#define LOAD_BUF(type, name, slot) \
    device const type *name [[buffer(slot)]]
#define STR(x) #x
#define CAT(a, b) a##b
#define LOG(fmt, ...) os_log_default.log(fmt, __VA_ARGS__)
#undef TILE

#if __METAL_VERSION__ >= 310 && defined(__HAVE_MESH__)
#    define HAS_MESH 1
#elif defined __METAL_IOS__ || !defined(USE_FALLBACK)
#    define HAS_MESH 0
#else
#    error "this shader needs Metal 3.1"
#endif

#ifdef DEBUG
constant bool kDebug = true;
#endif

#ifndef MAX_LIGHTS
#define MAX_LIGHTS 8 // lights per tile
#endif

#if __has_include(<metal_raytracing>)
#include <metal_raytracing>
#endif

#if 0
this text is never compiled: float4 f(
#if NESTED
    still disabled
#endif
#else
constant int kEnabled = 1;
#endif

#pragma region Helpers
static inline float square(float x) { return SQUARE(x); }
#pragma endregion

#pragma clang loop unroll(full)
#pragma METAL fp math_mode(safe)
#line 42 "generated.metal"
#warning this build has no tiling
