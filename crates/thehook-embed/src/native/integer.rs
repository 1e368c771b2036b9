//! ONNX Runtime's dynamic int8 product (`DynamicQuantizeMatMul`), as the
//! optimised copy of the model runs its int8 weights
//! ([`super::super::int8_products`]): the input quantized to `u8` over the
//! whole tensor, multiplied by the int8 weights in integers, then scaled
//! back to floats. The same arithmetic here keeps a query embedded by this
//! encoder comparable with the items ONNX Runtime embedded.

/// Output columns per tile, as in the float product.
const COLUMNS: usize = 16;
/// Tokens per tile.
const TOKENS: usize = 4;

/// `x` (`[tokens, inputs]`) times the int8 weights `q` (`[inputs,
/// outputs]`, row-major) scaled by `scale` (one per output column, or one
/// for all), before any bias.
pub(super) fn product(x: &[f32], tokens: usize, q: &[u8], scale: &[f32]) -> Vec<f32> {
    let inputs = x.len() / tokens;
    let outputs = q.len() / inputs;
    let (xq, x_scale) = quantized(x);
    let mut sums = vec![0i32; tokens * outputs];
    multiply(q, &xq, inputs, outputs, tokens, &mut sums);
    // ONNX Runtime scales by the product of the two scales, computed first.
    let multipliers: Vec<f32> = (0..outputs)
        .map(|c| x_scale * scale.get(c).unwrap_or(&scale[0]))
        .collect();
    let mut y = vec![0f32; sums.len()];
    for (out, row) in y.chunks_exact_mut(outputs).zip(sums.chunks_exact(outputs)) {
        for ((o, &s), m) in out.iter_mut().zip(row).zip(&multipliers) {
            *o = s as f32 * m;
        }
    }
    y
}

/// The scale and zero point of `u8` values covering `x`'s range and zero,
/// as ONNX Runtime's `GetQuantizationParameter` computes them.
fn quantization(x: &[f32]) -> (f32, f32) {
    let (min, max) = x
        .iter()
        .fold((0f32, 0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let scale = if max == min { 1.0 } else { (max - min) / 255.0 };
    let zero_point = (-min / scale).clamp(0.0, 255.0).round_ties_even();
    (scale, zero_point)
}

/// `x` quantized, less its zero point (so `-255..=255`), and the scale.
fn quantized(x: &[f32]) -> (Vec<i16>, f32) {
    let (scale, zero_point) = quantization(x);
    // ONNX Runtime divides, clamps to u8 and rounds half to even; the
    // bounds are whole numbers, so clamping first is the same.
    let (low, high) = (-zero_point, 255.0 - zero_point);
    let values = x
        .iter()
        .map(|v| round_half_even((v / scale).clamp(low, high)) as i16)
        .collect();
    (values, scale)
}

/// `v` rounded half to even, for `|v| < 2^22`: adding and taking away
/// 1.5 × 2^23 leaves no fraction bits, and IEEE addition rounds half to
/// even. `f32::round_ties_even` is the same but a library call on x86-64
/// without SSE4.1 (13% of a query's time).
fn round_half_even(v: f32) -> f32 {
    const SHIFT: f32 = 12_582_912.0;
    (v + SHIFT) - SHIFT
}

/// `y = xq · q` in exact integer sums.
fn multiply(q: &[u8], xq: &[i16], inputs: usize, outputs: usize, tokens: usize, y: &mut [i32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has just been checked for AVX2.
        return unsafe { avx2::multiply(q, xq, inputs, outputs, tokens, y) };
    }
    portable::multiply(q, xq, inputs, outputs, tokens, y)
}

/// Weight `k`, column `c` of `q`.
fn weight(q: &[u8], outputs: usize, k: usize, c: usize) -> i32 {
    i32::from(q[k * outputs + c] as i8)
}

/// The columns at the right edge, past the last whole tile, one by one.
fn edge_columns(q: &[u8], xq: &[i16], inputs: usize, outputs: usize, full: usize, y: &mut [i32]) {
    for (t, x) in xq.chunks_exact(inputs).enumerate() {
        for c in full..outputs {
            y[t * outputs + c] = (0..inputs)
                .map(|k| i32::from(x[k]) * weight(q, outputs, k, c))
                .sum();
        }
    }
}

/// The product for any CPU, written for the compiler to vectorise:
/// [`TOKENS`] × [`COLUMNS`] sums stay in registers while every input row
/// goes by once.
mod portable {
    use super::{edge_columns, COLUMNS, TOKENS};

    pub(super) fn multiply(
        q: &[u8],
        xq: &[i16],
        inputs: usize,
        outputs: usize,
        tokens: usize,
        y: &mut [i32],
    ) {
        // Transposed, so one weight row meets every token's input at once,
        // and padded with zeros to whole tiles.
        let padded = tokens.div_ceil(TOKENS) * TOKENS;
        let mut xt = vec![0i32; inputs * padded];
        for (t, row) in xq.chunks_exact(inputs).enumerate() {
            for (k, &v) in row.iter().enumerate() {
                xt[k * padded + t] = i32::from(v);
            }
        }
        let full = outputs - outputs % COLUMNS;
        for start in (0..full).step_by(COLUMNS) {
            for first in (0..padded).step_by(TOKENS) {
                let mut sums = [[0i32; COLUMNS]; TOKENS];
                for k in 0..inputs {
                    let w: &[u8; COLUMNS] = q[k * outputs + start..][..COLUMNS]
                        .try_into()
                        .expect("a whole tile");
                    let xs = &xt[k * padded + first..][..TOKENS];
                    for (row, &x) in sums.iter_mut().zip(xs) {
                        for (s, &v) in row.iter_mut().zip(w) {
                            *s += x * i32::from(v as i8);
                        }
                    }
                }
                for (t, row) in sums.iter().enumerate().take(tokens - first) {
                    y[(first + t) * outputs + start..][..COLUMNS].copy_from_slice(row);
                }
            }
        }
        edge_columns(q, xq, inputs, outputs, full, y);
    }
}

/// The product with AVX2's `vpmaddwd`: two inputs times two weight rows in
/// one instruction, sixteen 16-bit products summed pairwise into 32 bits.
/// No sum can overflow: `|x| <= 255` and `|w| <= 128`.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{edge_columns, COLUMNS, TOKENS};

    // One 16-byte load per weight row and two stores of 8 sums per token:
    // the loads and stores below are in bounds for 16-column tiles only.
    const _: () = assert!(
        COLUMNS == 16,
        "avx2::multiply is written for 16-column tiles"
    );

    /// `y = xq · q`, as [`super::portable::multiply`] computes it, with
    /// AVX2's 16-bit multiply-adds.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2 (`is_x86_feature_detected!("avx2")`): on one
    /// without it the instructions fault. The slices' lengths are checked
    /// as the portable version's are (indexing panics, never reads past).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn multiply(
        q: &[u8],
        xq: &[i16],
        inputs: usize,
        outputs: usize,
        tokens: usize,
        y: &mut [i32],
    ) {
        // Each token's inputs two by two, as one 32-bit value: input `2p`
        // in the low half, `2p + 1` (or zero past the end) in the high.
        let pairs = inputs.div_ceil(2);
        let padded = tokens.div_ceil(TOKENS) * TOKENS;
        let mut xp = vec![0i32; pairs * padded];
        for (t, x) in xq.chunks_exact(inputs).enumerate() {
            for p in 0..pairs {
                let low = u32::from(x[2 * p] as u16);
                let high = x.get(2 * p + 1).map_or(0, |&v| u32::from(v as u16));
                xp[p * padded + t] = (low | high << 16) as i32;
            }
        }
        let zeros = [0u8; COLUMNS];
        let full = outputs - outputs % COLUMNS;
        for start in (0..full).step_by(COLUMNS) {
            for first in (0..padded).step_by(TOKENS) {
                let mut sums = [[_mm256_setzero_si256(); 2]; TOKENS];
                for p in 0..pairs {
                    let row = |k: usize| match k < inputs {
                        true => &q[k * outputs + start..][..COLUMNS],
                        false => &zeros[..],
                    };
                    // SAFETY: each row holds COLUMNS (16) bytes.
                    let (even, odd) = unsafe {
                        (
                            _mm_loadu_si128(row(2 * p).as_ptr().cast()),
                            _mm_loadu_si128(row(2 * p + 1).as_ptr().cast()),
                        )
                    };
                    // Columns 0-7 and 8-15, each as (row 2p, row 2p + 1)
                    // pairs of 16-bit weights.
                    let left = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(even, odd));
                    let right = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(even, odd));
                    for (t, sum) in sums.iter_mut().enumerate() {
                        let x = _mm256_set1_epi32(xp[p * padded + first + t]);
                        sum[0] = _mm256_add_epi32(sum[0], _mm256_madd_epi16(x, left));
                        sum[1] = _mm256_add_epi32(sum[1], _mm256_madd_epi16(x, right));
                    }
                }
                for (t, sum) in sums.iter().enumerate().take(tokens - first) {
                    let out = &mut y[(first + t) * outputs + start..][..COLUMNS];
                    // SAFETY: `out` holds COLUMNS (16) values, 8 per store.
                    unsafe {
                        _mm256_storeu_si256(out.as_mut_ptr().cast(), sum[0]);
                        _mm256_storeu_si256(out[8..].as_mut_ptr().cast(), sum[1]);
                    }
                }
            }
        }
        edge_columns(q, xq, inputs, outputs, full, y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_covers_zero_and_maps_onto_u8() {
        // [-1, 3]: 4 / 255 a step, zero at 63.75, rounded to 64.
        let (scale, zero) = quantization(&[-1.0, 3.0, 0.5]);
        assert_eq!(scale, 4.0 / 255.0);
        assert_eq!(zero, 64.0);
        // All positive: the range still starts at zero.
        assert_eq!(quantization(&[1.0, 2.0]), (2.0 / 255.0, 0.0));
        // All zero: scale one, as ONNX Runtime.
        assert_eq!(quantization(&[0.0, 0.0]), (1.0, 0.0));
    }

    #[test]
    fn the_product_is_the_quantized_inputs_times_the_weights() {
        // 2 tokens × 3 inputs, 3 × 18 weights: one whole tile and two
        // columns one by one.
        let x = [0.5, -1.0, 2.0, 0.0, 1.0, -0.25];
        let (inputs, outputs) = (3, 18);
        let w: Vec<i8> = (0..inputs * outputs)
            .map(|i| (i as i32 * 37 % 255 - 127) as i8)
            .collect();
        let q: Vec<u8> = w.iter().map(|&v| v as u8).collect();
        let scale: Vec<f32> = (0..outputs).map(|c| 0.01 * (c + 1) as f32).collect();
        let y = product(&x, 2, &q, &scale);
        let (x_scale, zero) = quantization(&x);
        for t in 0..2 {
            for c in 0..outputs {
                let sum: i32 = (0..inputs)
                    .map(|k| {
                        let xq = (x[t * inputs + k] / x_scale).round_ties_even() + zero;
                        (xq - zero) as i32 * i32::from(w[k * outputs + c])
                    })
                    .sum();
                assert_eq!(y[t * outputs + c], sum as f32 * (x_scale * scale[c]));
            }
        }
        // Close to the float product: quantization loses little here.
        let exact: f32 = (0..inputs)
            .map(|k| x[k] * f32::from(w[k * outputs]) * scale[0])
            .sum();
        assert!(
            (y[0] - exact).abs() < 0.02 * exact.abs().max(1.0),
            "{} vs {exact}",
            y[0]
        );
    }

    #[test]
    fn rounding_is_half_to_even_as_onnx_runtimes() {
        for v in [
            -255.5f32, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.49, 254.5, 255.0, -0.0,
        ] {
            assert_eq!(round_half_even(v), v.round_ties_even(), "{v}");
        }
    }

    #[test]
    fn every_kernel_gives_the_same_sums() {
        // Odd inputs (a pair cut short), tokens past a whole tile, columns
        // past the last whole tile.
        let (tokens, inputs, outputs) = (5, 7, 37);
        let xq: Vec<i16> = (0..tokens * inputs)
            .map(|i| (i as i16 * 53) % 511 - 255)
            .collect();
        let q: Vec<u8> = (0..inputs * outputs)
            .map(|i| (i * 91 % 256) as u8)
            .collect();
        let mut expected = vec![0i32; tokens * outputs];
        for t in 0..tokens {
            for c in 0..outputs {
                expected[t * outputs + c] = (0..inputs)
                    .map(|k| i32::from(xq[t * inputs + k]) * weight(&q, outputs, k, c))
                    .sum();
            }
        }
        let mut y = vec![0i32; tokens * outputs];
        portable::multiply(&q, &xq, inputs, outputs, tokens, &mut y);
        assert_eq!(y, expected);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut y = vec![0i32; tokens * outputs];
            // SAFETY: checked for AVX2 just above.
            unsafe { avx2::multiply(&q, &xq, inputs, outputs, tokens, &mut y) };
            assert_eq!(y, expected);
        }
    }

    #[test]
    fn one_scale_serves_every_column() {
        let q = [1u8, 2, 3, 4];
        let y = product(&[1.0, 1.0], 1, &q, &[2.0]);
        let (s, _) = quantization(&[1.0, 1.0]);
        // 255 steps of 1/255 each: (255 * 1 + 255 * 3) and (255 * 2 + 255 * 4).
        assert_eq!(y, vec![1020.0 * s * 2.0, 1530.0 * s * 2.0]);
    }

    /// ONNX Runtime's own `DynamicQuantizeMatMul`, as [`int8_products`]
    /// rewrites a `Cast`, `Mul` and `MatMul` for this CPU, against
    /// [`product`]: the same floats, to the last bit, with weights and
    /// inputs whose pairs of products pass 2^15, where ONNX Runtime's AVX2
    /// kernel for signed weights without VNNI (`vpmaddubsw`) clips. On such
    /// a CPU the signed form must differ and the unsigned one be chosen: the
    /// CPU check and ONNX Runtime agree (scripts/test-cpus.sh runs this
    /// under qemu on a CPU without VNNI).
    ///
    /// [`int8_products`]: super::super::super::int8_products
    #[test]
    #[cfg(target_arch = "x86_64")] // where the int8 products run (INT8_PRODUCTS)
    #[cfg_attr(not(feature = "model"), ignore = "needs ONNX Runtime: scripts/test.sh")]
    fn onnx_runtimes_integer_product_gives_the_same_floats() {
        use super::super::super::int8_products::{rewrite, WeightSign};
        use super::super::super::onnx_graph::{OperatorSetIdProto, TensorProto};
        use prost::Message;

        #[derive(Clone, PartialEq, Message)]
        struct Model {
            #[prost(int64, tag = "1")]
            ir_version: i64,
            #[prost(message, optional, tag = "7")]
            graph: Option<Graph>,
            #[prost(message, repeated, tag = "8")]
            opset_import: Vec<OperatorSetIdProto>,
        }
        #[derive(Clone, PartialEq, Message)]
        struct Graph {
            #[prost(message, repeated, tag = "1")]
            node: Vec<Node>,
            #[prost(string, tag = "2")]
            name: String,
            #[prost(message, repeated, tag = "5")]
            initializer: Vec<TensorProto>,
            #[prost(message, repeated, tag = "11")]
            input: Vec<Value>,
            #[prost(message, repeated, tag = "12")]
            output: Vec<Value>,
        }
        #[derive(Clone, PartialEq, Message)]
        struct Node {
            #[prost(string, repeated, tag = "1")]
            input: Vec<String>,
            #[prost(string, repeated, tag = "2")]
            output: Vec<String>,
            #[prost(string, tag = "3")]
            name: String,
            #[prost(string, tag = "4")]
            op_type: String,
            #[prost(message, repeated, tag = "5")]
            attribute: Vec<Attribute>,
        }
        #[derive(Clone, PartialEq, Message)]
        struct Attribute {
            #[prost(string, tag = "1")]
            name: String,
            #[prost(int64, tag = "3")]
            i: i64,
            #[prost(int32, tag = "20")]
            r#type: i32,
        }
        #[derive(Clone, PartialEq, Message)]
        struct Value {
            #[prost(string, tag = "1")]
            name: String,
            #[prost(message, optional, tag = "2")]
            r#type: Option<Type>,
        }
        #[derive(Clone, PartialEq, Message)]
        struct Type {
            #[prost(message, optional, tag = "1")]
            tensor_type: Option<TensorType>,
        }
        #[derive(Clone, PartialEq, Message)]
        struct TensorType {
            #[prost(int32, tag = "1")]
            elem_type: i32,
            #[prost(message, optional, tag = "2")]
            shape: Option<Shape>,
        }
        #[derive(Clone, PartialEq, Message)]
        struct Shape {
            #[prost(message, repeated, tag = "1")]
            dim: Vec<Dim>,
        }
        #[derive(Clone, PartialEq, Message)]
        struct Dim {
            #[prost(int64, tag = "1")]
            dim_value: i64,
        }
        let float_value = |name: &str, dims: &[i64]| Value {
            name: name.into(),
            r#type: Some(Type {
                tensor_type: Some(TensorType {
                    elem_type: 1,
                    shape: Some(Shape {
                        dim: dims.iter().map(|&d| Dim { dim_value: d }).collect(),
                    }),
                }),
            }),
        };

        let (tokens, inputs, outputs) = (7usize, 64usize, 40usize);
        // A wide range, most values near its ends: pairs of products reach
        // 255 × 128 × 2, past the 16 bits `vpmaddubsw` keeps.
        let x: Vec<f32> = (0..tokens * inputs)
            .map(|i| match i % 5 {
                0 => 9.0 + (i % 7) as f32 / 7.0,
                1 => -0.5,
                _ => ((i * 37 % 101) as f32 - 40.0) / 13.0,
            })
            .collect();
        let w: Vec<i8> = (0..inputs * outputs)
            .map(|i| match i % 3 {
                0 => -128,
                1 => 127,
                _ => (i * 53 % 121) as i8 - 60,
            })
            .collect();
        let scale: Vec<f32> = (0..outputs).map(|c| 0.001 + c as f32 * 0.0007).collect();
        let q: Vec<u8> = w.iter().map(|&v| v as u8).collect();
        let tensor = |name: &str, dims: &[i64], data_type: i32, raw: Vec<u8>| TensorProto {
            dims: dims.to_vec(),
            data_type,
            float_data: vec![],
            name: name.into(),
            raw_data: raw.into(),
        };
        let node = |op: &str, input: &[&str], output: &str| Node {
            input: input.iter().map(|s| s.to_string()).collect(),
            output: vec![output.into()],
            name: output.into(),
            op_type: op.into(),
            attribute: vec![],
        };
        let mut cast = node("Cast", &["q"], "q_f");
        cast.attribute.push(Attribute {
            name: "to".into(),
            i: 1,      // FLOAT
            r#type: 2, // INT
        });
        let model = Model {
            ir_version: 8,
            graph: Some(Graph {
                node: vec![
                    cast,
                    node("Mul", &["q_f", "s"], "w"),
                    node("MatMul", &["x", "w"], "y"),
                ],
                name: "one product".into(),
                initializer: vec![
                    tensor("q", &[inputs as i64, outputs as i64], 3, q.clone()),
                    tensor(
                        "s",
                        &[1, outputs as i64],
                        1,
                        scale.iter().flat_map(|v| v.to_le_bytes()).collect(),
                    ),
                ],
                input: vec![float_value("x", &[tokens as i64, inputs as i64])],
                output: vec![float_value("y", &[tokens as i64, outputs as i64])],
            }),
            opset_import: vec![OperatorSetIdProto {
                domain: String::new(),
                version: 17,
            }],
        };
        let model = model.encode_to_vec();

        let Some(runtime) = crate::tests::repo_files().runtime else {
            panic!("ONNX Runtime is not in .assets/: run scripts/fetch-assets.py");
        };
        let env = crate::onnx_runtime::runtime_environment(&runtime).unwrap();
        let run = |sign: WeightSign| {
            let rewritten = rewrite(&bytes::Bytes::from(model.clone()), sign).expect("a product");
            let mut session = ort::session::Session::builder(&env)
                .unwrap()
                .commit_from_memory(&rewritten)
                .unwrap();
            let input = ort::value::Tensor::from_array(([tokens, inputs], x.clone())).unwrap();
            let outputs_of_ort = session.run(vec![("x", input.into_dyn())]).unwrap();
            let (_, theirs) = outputs_of_ort[0].try_extract_tensor::<f32>().unwrap();
            theirs.to_vec()
        };
        // scripts/test-cpus.sh runs this under qemu on a CPU without VNNI,
        // where the CPU check must pick the unsigned form.
        if crate::tests::cpu_without_vnni() {
            assert_eq!(WeightSign::here(), WeightSign::Unsigned);
        }
        let ours = product(&x, tokens, &q, &scale);
        assert_eq!(
            run(WeightSign::here()),
            ours,
            "the form chosen for this CPU"
        );
        assert_eq!(
            run(WeightSign::Unsigned),
            ours,
            "u8 weights: exact on every CPU"
        );
        // The signed kernel clips exactly where the CPU check says it does.
        let signed_exact = run(WeightSign::Signed) == ours;
        assert_eq!(
            signed_exact,
            WeightSign::here() == WeightSign::Signed,
            "ONNX Runtime's signed kernel and the CPU check disagree"
        );
    }
}
