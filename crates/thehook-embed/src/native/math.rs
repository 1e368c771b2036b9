//! The arithmetic of a BERT layer on row-major `[tokens, width]` buffers.
//!
//! Int8 weights with a scale per column run in integers, as ONNX Runtime
//! runs them ([`integer`]), on x86-64. Other weights, and those elsewhere,
//! are read as they are stored and turned into floats a block at a time
//! (any column scale applied once per output): dequantizing the whole
//! model at load cost 35 ms and 42 MB, more than the query it served. The loops are
//! written for the compiler to vectorise, and compiled twice on x86-64, the
//! second time for AVX2, picked at run time.

use super::integer;
use super::weights::{Matrix, View};

/// A dense layer: `y = x W + b`, with `W` stored `[inputs, outputs]` as ONNX
/// `MatMul` takes it.
pub(super) struct Linear {
    pub(super) weight: Matrix,
    pub(super) bias: Vec<f32>,
}

/// Output columns per tile: with [`TOKENS`] tokens, the partial sums fill
/// eight AVX registers and stay there for the whole row of inputs.
const COLUMNS: usize = 16;
/// Tokens per tile: each converted block of weights serves this many.
const TOKENS: usize = 4;

impl Linear {
    pub(super) fn inputs(&self) -> usize {
        self.weight.rows
    }

    pub(super) fn outputs(&self) -> usize {
        self.weight.cols
    }

    pub(super) fn forward(&self, x: &[f32], tokens: usize) -> Vec<f32> {
        let (inputs, outputs) = (self.inputs(), self.outputs());
        debug_assert_eq!(x.len(), tokens * inputs);
        if let Some((q, scale)) = self.weight.integer() {
            let mut y = integer::product(x, tokens, q, scale);
            for row in y.chunks_exact_mut(outputs) {
                row.iter_mut().zip(&self.bias).for_each(|(v, b)| *v += b);
            }
            return y;
        }
        // Transposed, so that one weight row meets every token's input at
        // once, and padded with zeros to whole tiles: a tile of fewer tokens
        // would convert the same weights for less work.
        let padded = tokens.div_ceil(TOKENS) * TOKENS;
        let mut xt = vec![0f32; inputs * padded];
        for (t, row) in x.chunks_exact(inputs).enumerate() {
            for (k, v) in row.iter().enumerate() {
                xt[k * padded + t] = *v;
            }
        }
        let mut y = vec![0f32; padded * outputs];
        multiply(&self.weight, &xt, padded, &mut y);
        y.truncate(tokens * outputs);
        for row in y.chunks_exact_mut(outputs) {
            // Int8 weights scaled per column on a CPU where they do not
            // run in integers.
            if let Some(scale) = self.weight.column_scale() {
                row.iter_mut().zip(scale).for_each(|(v, s)| *v *= s);
            }
            row.iter_mut().zip(&self.bias).for_each(|(v, b)| *v += b);
        }
        y
    }
}

/// `y = xᵀ W` for `xt` of shape `[inputs, tokens]`, before `W`'s column
/// scale; `tokens` is a multiple of [`TOKENS`].
fn multiply(w: &Matrix, xt: &[f32], tokens: usize, y: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has just been checked for AVX2 and FMA.
        return unsafe { multiply_avx2(w, xt, tokens, y) };
    }
    multiply_tiles::<false>(w, xt, tokens, y)
}

/// [`multiply_tiles`] compiled for AVX2 and FMA, so its loops use them.
///
/// # Safety
///
/// The CPU must have AVX2 and FMA (`is_x86_feature_detected!`): on one
/// without them the instructions fault. Nothing else is unsafe in it: the
/// slices are indexed with bounds checks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn multiply_avx2(w: &Matrix, xt: &[f32], tokens: usize, y: &mut [f32]) {
    multiply_tiles::<true>(w, xt, tokens, y)
}

/// The product, tile by tile: [`TOKENS`] tokens (`tokens` is a multiple)
/// × [`COLUMNS`] outputs at a time, then the columns left at the right edge
/// one by one. `FUSED` uses fused multiply-add (only where the CPU has it:
/// elsewhere `mul_add` is a slow library call).
#[inline(always)]
fn multiply_tiles<const FUSED: bool>(w: &Matrix, xt: &[f32], tokens: usize, y: &mut [f32]) {
    let (view, inputs, outputs) = (w.view(), w.rows, w.cols);
    let full = outputs - outputs % COLUMNS;
    for start in (0..full).step_by(COLUMNS) {
        for first in (0..tokens).step_by(TOKENS) {
            tile::<TOKENS, FUSED>(&view, inputs, xt, tokens, first, start, y, outputs);
        }
    }
    for c in full..outputs {
        for t in 0..tokens {
            y[t * outputs + c] = (0..inputs)
                .map(|k| xt[k * tokens + t] * view.value(k, c))
                .sum();
        }
    }
}

/// Tokens `first..first + T` by outputs `start..start + COLUMNS`: the sums
/// stay in registers while every input row goes by once.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // one tile of one product; a struct would only rename them
fn tile<const T: usize, const FUSED: bool>(
    view: &View<'_>,
    inputs: usize,
    xt: &[f32],
    tokens: usize,
    first: usize,
    start: usize,
    y: &mut [f32],
    outputs: usize,
) {
    let mut sums = [[0f32; COLUMNS]; T];
    for k in 0..inputs {
        let weights = view.block::<COLUMNS>(k, start);
        let xs: &[f32; T] = xt[k * tokens + first..][..T].try_into().expect("T values");
        for (row, &x) in sums.iter_mut().zip(xs) {
            for (s, &v) in row.iter_mut().zip(&weights) {
                *s = if FUSED { x.mul_add(v, *s) } else { *s + x * v };
            }
        }
    }
    for (t, row) in sums.iter().enumerate() {
        y[(first + t) * outputs + start..][..COLUMNS].copy_from_slice(row);
    }
}

/// Layer normalisation of each row in place, as ONNX `LayerNormalization`
/// on the last axis.
pub(super) fn layer_norm(x: &mut [f32], width: usize, scale: &[f32], bias: &[f32], eps: f32) {
    for row in x.chunks_exact_mut(width) {
        let mean = row.iter().sum::<f32>() / width as f32;
        let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / width as f32;
        let inv = 1.0 / (variance + eps).sqrt();
        for ((v, s), b) in row.iter_mut().zip(scale).zip(bias) {
            *v = (*v - mean) * inv * s + b;
        }
    }
}

/// `x += y`, element-wise (the residual connections).
pub(super) fn add_in_place(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}

/// GELU with the exact error function, as BERT's `hidden_act: gelu`.
pub(super) fn gelu_in_place(x: &mut [f32]) {
    for v in x {
        *v *= 0.5 * (1.0 + libm::erff(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Multi-head self-attention over one text (no padding, so no mask):
/// `q`, `k`, `v` are `[tokens, heads × head_width]`; returns the same shape.
pub(super) fn attention(q: &[f32], k: &[f32], v: &[f32], tokens: usize, heads: usize) -> Vec<f32> {
    let width = q.len() / tokens;
    let head_width = width / heads;
    let scale = 1.0 / (head_width as f32).sqrt();
    let mut out = vec![0f32; tokens * width];
    let mut weights = vec![0f32; tokens];
    for h in 0..heads {
        let cols = h * head_width..(h + 1) * head_width;
        for i in 0..tokens {
            let qi = &q[i * width..][cols.clone()];
            for (j, w) in weights.iter_mut().enumerate() {
                let kj = &k[j * width..][cols.clone()];
                *w = qi.iter().zip(kj).map(|(a, b)| a * b).sum::<f32>() * scale;
            }
            softmax_in_place(&mut weights);
            let oi = &mut out[i * width..][cols.clone()];
            for (j, w) in weights.iter().enumerate() {
                let vj = &v[j * width..][cols.clone()];
                oi.iter_mut().zip(vj).for_each(|(o, x)| *o += w * x);
            }
        }
    }
    out
}

fn softmax_in_place(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    x.iter_mut().for_each(|v| *v /= sum);
}

#[cfg(test)]
mod tests {
    use super::super::super::onnx_graph::Per;
    use super::*;

    #[test]
    fn a_linear_layer_multiplies_and_adds_its_bias() {
        // x = [[1, 2], [3, 4]], W = [[1, 0, 2], [0, 1, 3]], b = [10, 20, 30]
        let layer = Linear {
            weight: Matrix::from_floats(2, 3, &[1.0, 0.0, 2.0, 0.0, 1.0, 3.0]),
            bias: vec![10.0, 20.0, 30.0],
        };
        let y = layer.forward(&[1.0, 2.0, 3.0, 4.0], 2);
        assert_eq!(y, vec![11.0, 22.0, 38.0, 13.0, 24.0, 48.0]);
    }

    #[test]
    fn int8_weights_scaled_per_row_are_read_as_floats_across_blocks() {
        // 3 inputs × 150 outputs: three column blocks, the last one partial.
        let (inputs, outputs) = (3, 150);
        let q: Vec<i8> = (0..inputs * outputs).map(|i| (i % 255) as i8).collect();
        let scale = vec![0.5, 2.0, -1.5];
        let layer = Linear {
            weight: Matrix::from_int8(inputs, outputs, &q, scale.clone(), Per::Row),
            bias: vec![1.0; outputs],
        };
        let x = [1.0, -2.0, 0.5, 3.0, 0.0, -1.0];
        let y = layer.forward(&x, 2);
        for t in 0..2 {
            for j in 0..outputs {
                let sum: f32 = (0..inputs)
                    .map(|k| x[t * inputs + k] * f32::from(q[k * outputs + j]) * scale[k])
                    .sum();
                let got = y[t * outputs + j];
                assert!(
                    (got - (sum + 1.0)).abs() < 1e-3,
                    "token {t} column {j}: {got} vs {sum}"
                );
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn int8_weights_scaled_per_column_run_in_integers() {
        let (inputs, outputs) = (3, 20);
        let q: Vec<i8> = (0..inputs * outputs).map(|i| (i * 7 % 255) as i8).collect();
        let scale: Vec<f32> = (0..outputs).map(|j| 0.5 + j as f32 / 100.0).collect();
        let layer = Linear {
            weight: Matrix::from_int8(inputs, outputs, &q, scale.clone(), Per::Column),
            bias: vec![1.0; outputs],
        };
        let x = [1.0, -2.0, 0.5, 3.0, 0.0, -1.0];
        let raw: Vec<u8> = q.iter().map(|&v| v as u8).collect();
        let mut expected = integer::product(&x, 2, &raw, &scale);
        expected.iter_mut().for_each(|v| *v += 1.0);
        assert_eq!(layer.forward(&x, 2), expected);
    }

    #[test]
    fn layer_norm_centres_and_scales_each_row() {
        let mut x = vec![1.0, 3.0, 10.0, 10.0];
        layer_norm(&mut x, 2, &[1.0, 2.0], &[0.0, 1.0], 0.0);
        assert_eq!(x[..2], [-1.0, 3.0]);
        // A constant row has no variance; eps keeps it finite.
        let mut flat = vec![5.0, 5.0];
        layer_norm(&mut flat, 2, &[1.0, 1.0], &[0.0, 0.0], 1e-12);
        assert_eq!(flat, [0.0, 0.0]);
    }

    #[test]
    fn attention_to_one_token_returns_its_value() {
        let q = [1.0, 2.0];
        let v = [7.0, -3.0];
        assert_eq!(attention(&q, &q, &v, 1, 2), vec![7.0, -3.0]);
    }

    #[test]
    fn attention_weighs_tokens_by_softmax_of_scaled_dot_products() {
        // One head of width 1: scores q·k = [0, ln 3] → weights 1/4, 3/4.
        let q = [1.0, 1.0];
        let k = [0.0, 3f32.ln()];
        let v = [4.0, 8.0];
        let out = attention(&q, &k, &v, 2, 1);
        assert!((out[0] - 7.0).abs() < 1e-5, "{out:?}");
    }

    #[test]
    fn gelu_matches_known_values() {
        let mut x = [0.0, 1.0, -1.0];
        gelu_in_place(&mut x);
        assert_eq!(x[0], 0.0);
        assert!((x[1] - 0.841_344_7).abs() < 1e-6);
        assert!((x[2] + 0.158_655_3).abs() < 1e-6);
    }
}
