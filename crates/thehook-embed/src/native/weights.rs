//! A BERT encoder's weights as the ONNX file stores them, read in place:
//! each is found by the parameter name the exporter kept (`…query.bias`),
//! following the graph from a bias back to the matrix its `MatMul`
//! multiplies by.
//!
//! Weights come either as float tensors or, as in the shipped int8 model,
//! as int8 tensors that the graph turns into floats (`Cast` then `Mul` by a
//! per-row or per-column scale).

use std::collections::HashMap;

use bytes::Bytes;

use super::super::onnx_graph::{Graph, Per, INT8_PRODUCTS};

/// A 2-D weight as stored: floats, or int8 values with a scale per row or
/// per column (or one for all).
pub(super) struct Matrix {
    pub(super) rows: usize,
    pub(super) cols: usize,
    values: Values,
}

enum Values {
    Float(Bytes),
    Int8 { q: Bytes, scale: Vec<f32>, per: Per },
}

/// A matrix's values as stored, before any per-column scale
/// ([`Matrix::column_scale`]): the float product and a row read apply that
/// once per output instead of once per weight.
pub(super) enum View<'a> {
    Float {
        bytes: &'a [u8],
        cols: usize,
    },
    Int8 {
        q: &'a [u8],
        cols: usize,
        row_scale: RowScale<'a>,
    },
}

pub(super) enum RowScale<'a> {
    PerRow(&'a [f32]),
    One(f32),
}

impl View<'_> {
    /// Values `start..start + N` of row `r`.
    #[inline(always)]
    pub(super) fn block<const N: usize>(&self, r: usize, start: usize) -> [f32; N] {
        match self {
            View::Float { bytes, cols } => {
                let at = (r * cols + start) * 4;
                let b = &bytes[at..at + N * 4];
                std::array::from_fn(|j| {
                    f32::from_le_bytes([b[4 * j], b[4 * j + 1], b[4 * j + 2], b[4 * j + 3]])
                })
            }
            View::Int8 { q, cols, row_scale } => {
                let at = r * cols + start;
                let q: &[u8; N] = q[at..at + N].try_into().expect("N values");
                let s = row_scale.of(r);
                std::array::from_fn(|j| f32::from(q[j] as i8) * s)
            }
        }
    }

    /// The value at row `r`, column `c`.
    pub(super) fn value(&self, r: usize, c: usize) -> f32 {
        self.block::<1>(r, c)[0]
    }
}

impl RowScale<'_> {
    #[inline(always)]
    fn of(&self, r: usize) -> f32 {
        match self {
            RowScale::PerRow(scale) => scale[r],
            RowScale::One(s) => *s,
        }
    }
}

impl Matrix {
    /// Row `r` as floats.
    pub(super) fn row(&self, r: usize) -> Vec<f32> {
        let mut out = vec![0f32; self.cols];
        self.read(r, 0, &mut out);
        out
    }

    /// Values `start..start + out.len()` of row `r` into `out`.
    fn read(&self, r: usize, start: usize, out: &mut [f32]) {
        let view = self.view();
        for (j, o) in out.iter_mut().enumerate() {
            *o = view.value(r, start + j);
        }
        if let Some(scale) = self.column_scale() {
            out.iter_mut()
                .zip(&scale[start..])
                .for_each(|(o, s)| *o *= s);
        }
    }

    /// The stored values, for the matrix product.
    pub(super) fn view(&self) -> View<'_> {
        match &self.values {
            Values::Float(bytes) => View::Float {
                bytes,
                cols: self.cols,
            },
            Values::Int8 { q, scale, per } => View::Int8 {
                q,
                cols: self.cols,
                row_scale: match per {
                    Per::Row => RowScale::PerRow(scale),
                    Per::All | Per::AllReshaped => RowScale::One(scale[0]),
                    Per::Column => RowScale::One(1.0),
                },
            },
        }
    }

    #[cfg(test)]
    pub(super) fn from_floats(rows: usize, cols: usize, values: &[f32]) -> Matrix {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Matrix {
            rows,
            cols,
            values: Values::Float(bytes.into()),
        }
    }

    #[cfg(test)]
    pub(super) fn from_int8(
        rows: usize,
        cols: usize,
        q: &[i8],
        scale: Vec<f32>,
        per: Per,
    ) -> Matrix {
        let q: Vec<u8> = q.iter().map(|&v| v as u8).collect();
        Matrix {
            rows,
            cols,
            values: Values::Int8 {
                q: q.into(),
                scale,
                per,
            },
        }
    }

    /// The weights as ONNX Runtime's integer product takes them, when this
    /// product runs in integers ([`INT8_PRODUCTS`],
    /// [`Per::runs_in_integers`]): the int8 values, row-major, and the
    /// scale of each column (or one for all).
    pub(super) fn integer(&self) -> Option<(&[u8], &[f32])> {
        match &self.values {
            Values::Int8 { q, scale, per } if INT8_PRODUCTS && per.runs_in_integers() => {
                Some((q, scale))
            }
            _ => None,
        }
    }

    /// The scale of each column, when the weights have one.
    pub(super) fn column_scale(&self) -> Option<&[f32]> {
        match &self.values {
            Values::Int8 {
                scale,
                per: Per::Column,
                ..
            } => Some(scale),
            _ => None,
        }
    }
}

/// The model's weights by parameter name.
pub(super) struct Weights {
    graph: Graph,
    /// Bias name → the `MatMul` weight name its `Add` follows.
    weight_of_bias: HashMap<String, String>,
}

impl Weights {
    /// Decodes an ONNX model; `None` when the bytes are not one.
    pub(super) fn decode(bytes: Bytes) -> Option<Weights> {
        let graph = Graph::decode(bytes)?;
        let mut weight_of_bias = HashMap::new();
        for node in graph.nodes() {
            if node.op_type != "Add" || node.input.len() != 2 {
                continue;
            }
            // The product and the bias, in either order.
            for (product, bias) in [(0, 1), (1, 0)] {
                let Some((_, matmul)) = graph.made_by(&node.input[product]) else {
                    continue;
                };
                if matmul.op_type == "MatMul" && matmul.input.len() == 2 {
                    weight_of_bias.insert(node.input[bias].clone(), matmul.input[1].clone());
                }
            }
        }
        Some(Weights {
            graph,
            weight_of_bias,
        })
    }

    /// The name every parameter starts with (`inner.` in the shipped
    /// model, empty in a plain export), found from the word embeddings.
    pub(super) fn prefix(&self) -> Option<String> {
        const WORDS: &str = "embeddings.word_embeddings.weight";
        self.graph
            .names()
            .filter_map(|n| n.strip_suffix(WORDS))
            .min_by_key(|p| p.len())
            .map(str::to_string)
    }

    /// A float vector parameter (a bias, a layer norm's scale).
    pub(super) fn vector(&self, name: &str) -> Option<Vec<f32>> {
        self.graph.vector(name)
    }

    /// A 2-D weight by name: an initializer, or the output of the
    /// `Cast` + `Mul` that dequantizes one.
    pub(super) fn matrix(&self, name: &str) -> Option<Matrix> {
        if let Some((rows, cols, bytes)) = self.graph.float_matrix(name) {
            return Some(Matrix {
                rows,
                cols,
                values: Values::Float(bytes),
            });
        }
        let w = self.graph.int8_weight(name)?;
        Some(Matrix {
            rows: w.rows,
            cols: w.cols,
            values: Values::Int8 {
                q: w.q,
                scale: w.scale,
                per: w.per,
            },
        })
    }

    /// The weight a `MatMul` multiplies by before adding `bias_name`.
    pub(super) fn weight_before(&self, bias_name: &str) -> Option<Matrix> {
        self.matrix(self.weight_of_bias.get(bias_name)?)
    }
}
