// SYNTAX TEST "source.metal" "a compute kernel with address spaces and attributes"

#include <metal_stdlib>
// <- meta.preprocessor.include.metal keyword.control.directive.include.metal punctuation.definition.directive.metal
// <~------- meta.preprocessor.include.metal keyword.control.directive.include.metal
//       ^ string.quoted.other.lt-gt.include.metal punctuation.definition.string.begin.metal
//        ^^^^^^^^^^^^ string.quoted.other.lt-gt.include.metal
using namespace metal;
// <----- keyword.other.using.metal
//    ^^^^^^^^^ keyword.other.namespace.metal
//              ^^^^^ entity.name.namespace.metal
//                   ^ punctuation.terminator.statement.metal

kernel void add_arrays(device const float *a [[buffer(0)]],
// <------ storage.modifier.stage.metal
//     ^^^^ storage.type.primitive.metal
//          ^^^^^^^^^^ entity.name.function.metal
//                     ^^^^^^ storage.modifier.address-space.metal
//                            ^^^^^ storage.modifier.metal
//                                  ^^^^^ storage.type.primitive.metal
//                                           ^^ meta.attribute.metal punctuation.definition.attribute.begin.metal
//                                             ^^^^^^ meta.attribute.metal entity.other.attribute-name.metal
//                                                   ^ meta.attribute.metal meta.attribute.arguments.metal punctuation.section.arguments.begin.bracket.round.metal
//                                                    ^ meta.attribute.metal meta.attribute.arguments.metal constant.numeric.integer.decimal.metal
//                                                      ^^ meta.attribute.metal punctuation.definition.attribute.end.metal
                       constant float *b [[buffer(1)]],
//                     ^^^^^^^^ storage.modifier.address-space.metal
                       device float *out [[buffer(2)]],
//                     ^^^^^^ storage.modifier.address-space.metal
                       threadgroup float *scratch [[threadgroup(0)]],
//                     ^^^^^^^^^^^ storage.modifier.address-space.metal
//                                                  ^^^^^^^^^^^ meta.attribute.metal entity.other.attribute-name.metal - storage.modifier.address-space.metal
                       uint index [[thread_position_in_grid]])
//                     ^^^^ storage.type.primitive.metal
//                                  ^^^^^^^^^^^^^^^^^^^^^^^ meta.attribute.metal entity.other.attribute-name.metal
{
    out[index] = a[index] + b[index];
//             ^ keyword.operator.assignment.metal
//                        ^ keyword.operator.arithmetic.metal
    threadgroup_barrier(mem_flags::mem_threadgroup);
//  ^^^^^^^^^^^^^^^^^^^ support.function.metal
//                      ^^^^^^^^^ support.type.enum.metal
//                               ^^ punctuation.separator.scope-resolution.metal
//                                 ^^^^^^^^^^^^^^^ support.constant.metal
    out[index] = clamp(out[index], 0.0f, 1.0f) + metal::fast::sin(out[index]);
//               ^^^^^ support.function.metal
//                                               ^^^^^ entity.name.namespace.metal
//                                                    ^^ punctuation.separator.scope-resolution.metal
//                                                      ^^^^ entity.name.namespace.metal
//                                                            ^^^ support.function.metal
    float total = simd_prefix_exclusive_sum(out[index]) + length(float2(1.0f, 2.0f));
//                ^^^^^^^^^^^^^^^^^^^^^^^^^ support.function.metal
//                                                        ^^^^^^ support.function.metal
//                                                               ^^^^^^ storage.type.primitive.metal
    float length = total;
//        ^^^^^^ - support.function.metal
    out[index] = my_helper(total) + in.read(index).x;
//               ^^^^^^^^^ entity.name.function.metal
//                                    ^ punctuation.accessor.metal
//                                     ^^^^ entity.name.function.member.metal
//                                                 ^ variable.other.member.metal
}
