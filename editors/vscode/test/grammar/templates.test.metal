// SYNTAX TEST "source.metal" "templates, casts and library class templates"

template <typename T, uint N>
// <-------- meta.template.metal storage.type.template.metal
//       ^ meta.template.metal punctuation.section.angle-brackets.begin.template.metal
//        ^^^^^^^^ storage.type.template.metal
//                 ^ entity.name.type.template.metal
//                    ^^^^ storage.type.primitive.metal
//                          ^ punctuation.section.angle-brackets.end.template.metal
T sum_all(thread const array<T, N> &values);
//                     ^^^^^ meta.template.call.metal support.type.metal
//                          ^ punctuation.section.angle-brackets.begin.template.metal
//                                 ^ keyword.operator.bitwise.metal - meta.template.call.metal

uint bits = as_type<uint>(1.0f);
//          ^^^^^^^ meta.template.call.metal support.function.metal
//                 ^ punctuation.section.angle-brackets.begin.template.metal
//                  ^^^^ meta.template.call.metal storage.type.primitive.metal
//                      ^ punctuation.section.angle-brackets.end.template.metal
//                        ^^^ constant.numeric.float.metal - meta.template.call.metal
int n = static_cast<int>(x) + reinterpret_cast<device int *>(p)[0];
//      ^^^^^^^^^^^ keyword.operator.cast.metal
//                 ^ punctuation.section.angle-brackets.begin.template.metal
//                            ^^^^^^^^^^^^^^^^ keyword.operator.cast.metal
//                                             ^^^^^^ storage.modifier.address-space.metal
device atomic<float> *acc;
//     ^^^^^^ support.type.metal
atomic_int counter;
// <---------- support.type.atomic.metal
simdgroup_float8x8 m;
// <------------------ support.type.simdgroup-matrix.metal
simdgroup_matrix<half, 8, 8> mh;
// <---------------- support.type.metal
//               ^^^^ storage.type.primitive.metal
//                     ^ constant.numeric.integer.decimal.metal
texture2d_ms<float, access::read> ms;
// <------------ support.type.metal
//                  ^^^^^^ support.type.enum.metal
//                          ^^^^ support.constant.metal
depthcube_array<float> dc;
// <--------------- support.type.metal
Pair<float, vec<half, 3>> pair;
//  ^ meta.template.call.metal punctuation.section.angle-brackets.begin.template.metal
//          ^^^ meta.template.call.metal meta.template.call.metal support.type.metal
//                     ^ meta.template.call.metal meta.template.call.metal punctuation.section.angle-brackets.end.template.metal
//                      ^ meta.template.call.metal punctuation.section.angle-brackets.end.template.metal
bool less = a < b;
//            ^ keyword.operator.comparison.metal - meta.template.call.metal
int array = 3;
//  ^^^^^ - support.type.metal
float mesh = 1.0bf;
//    ^^^^ - support.type.metal
metal::float4 v = metal::precise::cos(metal::float4(0));
// <----- entity.name.namespace.metal
//   ^^ punctuation.separator.scope-resolution.metal
//     ^^^^^^ storage.type.primitive.metal
//                                ^^^ support.function.metal
