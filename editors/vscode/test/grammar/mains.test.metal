// SYNTAX TEST "source.metal" "vertex and fragment entry points with stage_in"

struct VertexOut {
// <------ storage.type.struct.metal
//     ^^^^^^^^^ entity.name.type.metal
    float4 position [[position]];
//  ^^^^^^ storage.type.primitive.metal
//                    ^^^^^^^^ meta.attribute.metal entity.other.attribute-name.metal
    half3 color [[user(locn0), flat]];
//  ^^^^^ storage.type.primitive.metal
//                ^^^^ entity.other.attribute-name.metal
//                     ^^^^^ meta.attribute.arguments.metal variable.other.attribute-argument.metal
//                           ^ meta.attribute.metal punctuation.separator.delimiter.comma.metal
//                             ^^^^ entity.other.attribute-name.metal
    float3x3 basis;
//  ^^^^^^^^ storage.type.matrix.metal
    packed_float3 normal;
//  ^^^^^^^^^^^^^ storage.type.primitive.metal
};

vertex VertexOut vs_main(uint vid [[vertex_id]], const device packed_float3 *pos [[buffer(0)]]) {
// <------ storage.modifier.stage.metal
//               ^^^^^^^ entity.name.function.metal
//                                  ^^^^^^^^^ entity.other.attribute-name.metal
//                                                     ^^^^^^ storage.modifier.address-space.metal
    VertexOut out;
    return out;
//  ^^^^^^ keyword.control.metal
}

[[fragment]] half4 fs_main(VertexOut in [[stage_in]],
// <-- meta.attribute.metal punctuation.definition.attribute.begin.metal
//^^^^^^^^ meta.attribute.metal storage.modifier.stage.metal
//           ^^^^^ storage.type.primitive.metal
//                                        ^^^^^^^^ meta.attribute.metal entity.other.attribute-name.metal
                           texture2d<half, access::sample> tex [[texture(0)]],
//                         ^^^^^^^^^ meta.template.call.metal support.type.metal
//                                  ^ meta.template.call.metal punctuation.section.angle-brackets.begin.template.metal
//                                   ^^^^ meta.template.call.metal storage.type.primitive.metal
//                                         ^^^^^^ meta.template.call.metal support.type.enum.metal
//                                                 ^^^^^^ meta.template.call.metal support.constant.metal
//                                                       ^ meta.template.call.metal punctuation.section.angle-brackets.end.template.metal
                           sampler smp [[sampler(0)]]) {
//                         ^^^^^^^ support.type.sampler.metal
//                                       ^^^^^^^ meta.attribute.metal entity.other.attribute-name.metal
    return tex.sample(smp, float2(in.position.xy)) * in.color.rgbr;
//             ^^^^^^ entity.name.function.member.metal
}

[[visible]] float shade(float x) { return x; }
//^^^^^^^ meta.attribute.metal storage.modifier.stage.metal
[[stitchable]] float blend(float a) { return a; }
//^^^^^^^^^^ meta.attribute.metal storage.modifier.stage.metal
[[kernel, max_total_threads_per_threadgroup(1024)]] void k() {}
//^^^^^^ storage.modifier.stage.metal
//        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ entity.other.attribute-name.metal
//                                          ^^^^ constant.numeric.integer.decimal.metal
[[patch(quad, 4)]] vertex float4 post_tess(float2 uv [[position_in_patch]]) { return float4(uv, 0, 1); }
//^^^^^ storage.modifier.stage.metal
//      ^^^^ variable.other.attribute-argument.metal
//            ^ constant.numeric.integer.decimal.metal
//                 ^^^^^^ storage.modifier.stage.metal
fragment float4 depth_only(float4 p [[position]], uint mask [[sample_mask]], object_data float *payload, ray_data float *rd, threadgroup_imageblock float *ib) { return p; }
// <-------- storage.modifier.stage.metal
//                                                                           ^^^^^^^^^^^ storage.modifier.address-space.metal
//                                                                                                       ^^^^^^^^ storage.modifier.address-space.metal
//                                                                                                                           ^^^^^^^^^^^^^^^^^^^^^^ storage.modifier.address-space.metal
