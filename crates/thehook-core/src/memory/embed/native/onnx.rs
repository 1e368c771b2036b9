//! Reading a BERT encoder's weights out of an ONNX file, without ONNX
//! Runtime: the file is a protobuf message, decoded in place from a memory
//! map (`bytes::Bytes`, so tensors are not copied), and each weight is found
//! by the parameter name the exporter kept (`…query.bias`), following the
//! graph from a bias back to the matrix its `MatMul` multiplies by.
//!
//! Weights come either as float tensors or, as in the shipped int8 model,
//! as int8 tensors that the graph turns into floats (`Cast` then `Mul` by a
//! per-row or per-column scale); both read as the same floats here.

use std::collections::HashMap;

use bytes::Bytes;
use prost::Message;

/// The few parts of ONNX's `ModelProto` this needs (field numbers from
/// onnx/onnx.proto; the rest is skipped by the decoder).
#[derive(Clone, PartialEq, Message)]
struct ModelProto {
    #[prost(message, optional, tag = "7")]
    graph: Option<GraphProto>,
}

#[derive(Clone, PartialEq, Message)]
struct GraphProto {
    #[prost(message, repeated, tag = "1")]
    node: Vec<NodeProto>,
    #[prost(message, repeated, tag = "5")]
    initializer: Vec<TensorProto>,
}

#[derive(Clone, PartialEq, Message)]
struct NodeProto {
    #[prost(string, repeated, tag = "1")]
    input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    output: Vec<String>,
    #[prost(string, tag = "4")]
    op_type: String,
}

#[derive(Clone, PartialEq, Message)]
struct TensorProto {
    #[prost(int64, repeated, tag = "1")]
    dims: Vec<i64>,
    #[prost(int32, tag = "2")]
    data_type: i32,
    #[prost(float, repeated, tag = "4")]
    float_data: Vec<f32>,
    #[prost(string, tag = "8")]
    name: String,
    #[prost(bytes = "bytes", tag = "9")]
    raw_data: Bytes,
}

/// ONNX `TensorProto.DataType` values.
const FLOAT: i32 = 1;
const INT8: i32 = 3;

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
/// ([`Matrix::column_scale`]): the matrix product applies that once per
/// output instead of once per weight.
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

/// What a scale of int8 weights applies to.
enum Per {
    Row,
    Column,
    All,
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
                    Per::All => RowScale::One(scale[0]),
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
    pub(super) fn from_int8(rows: usize, cols: usize, q: &[i8], column_scale: Vec<f32>) -> Matrix {
        let q: Vec<u8> = q.iter().map(|&v| v as u8).collect();
        Matrix {
            rows,
            cols,
            values: Values::Int8 {
                q: q.into(),
                scale: column_scale,
                per: Per::Column,
            },
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

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// The decoded graph, with lookups by tensor name.
pub(super) struct Graph {
    initializers: HashMap<String, TensorProto>,
    nodes: Vec<NodeProto>,
    /// Output name → the index of the node that makes it.
    producer: HashMap<String, usize>,
    /// Bias name → the `MatMul` weight name its `Add` follows.
    weight_of_bias: HashMap<String, String>,
}

impl Graph {
    /// Decodes an ONNX model; `None` when the bytes are not one.
    pub(super) fn decode(bytes: Bytes) -> Option<Graph> {
        let graph = ModelProto::decode(bytes).ok()?.graph?;
        let initializers: HashMap<_, _> = graph
            .initializer
            .into_iter()
            .map(|t| (t.name.clone(), t))
            .collect();
        let nodes = graph.node;
        let mut producer = HashMap::new();
        for (i, node) in nodes.iter().enumerate() {
            for out in &node.output {
                producer.insert(out.clone(), i);
            }
        }
        let made_by = |name: &str| producer.get(name).map(|&i| &nodes[i]);
        let mut weight_of_bias = HashMap::new();
        for node in &nodes {
            if node.op_type != "Add" || node.input.len() != 2 {
                continue;
            }
            // The product and the bias, in either order.
            for (product, bias) in [(0, 1), (1, 0)] {
                let Some(matmul) = made_by(&node.input[product]) else {
                    continue;
                };
                if matmul.op_type == "MatMul" && matmul.input.len() == 2 {
                    weight_of_bias.insert(node.input[bias].clone(), matmul.input[1].clone());
                }
            }
        }
        Some(Graph {
            initializers,
            nodes,
            producer,
            weight_of_bias,
        })
    }

    /// The node whose output is `name`.
    fn made_by(&self, name: &str) -> Option<&NodeProto> {
        self.producer.get(name).map(|&i| &self.nodes[i])
    }

    /// The name every parameter starts with (`inner.` in the shipped
    /// model, empty in a plain export), found from the word embeddings.
    pub(super) fn prefix(&self) -> Option<String> {
        const WORDS: &str = "embeddings.word_embeddings.weight";
        let named = self.initializers.keys().chain(self.producer.keys());
        named
            .filter_map(|n| n.strip_suffix(WORDS))
            .min_by_key(|p| p.len())
            .map(str::to_string)
    }

    /// A float vector parameter (a bias, a layer norm's scale).
    pub(super) fn vector(&self, name: &str) -> Option<Vec<f32>> {
        let t = self.initializers.get(name)?;
        (t.data_type == FLOAT).then(|| float_values(t))?
    }

    /// A 2-D weight by name: an initializer, or the output of the
    /// `Cast` + `Mul` that dequantizes one.
    pub(super) fn matrix(&self, name: &str) -> Option<Matrix> {
        if let Some(t) = self.initializers.get(name) {
            let (rows, cols) = two_dims(t)?;
            let bytes = if t.raw_data.is_empty() {
                Bytes::from(
                    t.float_data
                        .iter()
                        .flat_map(|f| f.to_le_bytes())
                        .collect::<Vec<u8>>(),
                )
            } else {
                t.raw_data.clone()
            };
            return (t.data_type == FLOAT && bytes.len() == rows * cols * 4).then_some(Matrix {
                rows,
                cols,
                values: Values::Float(bytes),
            });
        }
        let mul = self.made_by(name)?;
        if mul.op_type != "Mul" || mul.input.len() != 2 {
            return None;
        }
        let cast = self.made_by(&mul.input[0])?;
        if cast.op_type != "Cast" {
            return None;
        }
        let q = self.initializers.get(cast.input.first()?)?;
        let scale_tensor = self.initializers.get(&mul.input[1])?;
        let (rows, cols) = two_dims(q)?;
        if q.data_type != INT8 || q.raw_data.len() != rows * cols {
            return None;
        }
        let scale = float_values(scale_tensor)?;
        let per = match scale_tensor.dims.as_slice() {
            [r, 1] if *r as usize == rows => Per::Row,
            [1, c] | [c] if *c as usize == cols => Per::Column,
            _ if scale.len() == 1 => Per::All,
            _ => return None,
        };
        Some(Matrix {
            rows,
            cols,
            values: Values::Int8 {
                q: q.raw_data.clone(),
                scale,
                per,
            },
        })
    }

    /// The weight a `MatMul` multiplies by before adding `bias_name`.
    pub(super) fn weight_before(&self, bias_name: &str) -> Option<Matrix> {
        self.matrix(self.weight_of_bias.get(bias_name)?)
    }
}

fn two_dims(t: &TensorProto) -> Option<(usize, usize)> {
    match t.dims.as_slice() {
        [r, c] if *r > 0 && *c > 0 => Some((*r as usize, *c as usize)),
        _ => None,
    }
}

fn float_values(t: &TensorProto) -> Option<Vec<f32>> {
    if t.data_type != FLOAT {
        return None;
    }
    if t.raw_data.is_empty() {
        Some(t.float_data.clone())
    } else {
        t.raw_data
            .len()
            .is_multiple_of(4)
            .then(|| floats(&t.raw_data))
    }
}
