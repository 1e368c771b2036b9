//! The parts of an ONNX file this crate reads, decoded in place from a
//! memory map (`bytes::Bytes`, so tensors are not copied): the graph's
//! nodes, its initializers by name, and the int8 weights it turns into
//! floats. The built-in encoder ([`super::native`]) reads its weights from
//! here, and [`super::int8_products`] finds the products it rewrites here,
//! so both agree on which products run in integers.

use std::collections::HashMap;

use bytes::Bytes;
use prost::Message;

/// The few parts of ONNX's `ModelProto` this needs (field numbers from
/// onnx/onnx.proto; the rest is skipped by the decoder).
#[derive(Clone, PartialEq, Message)]
pub(super) struct ModelProto {
    #[prost(message, optional, tag = "7")]
    pub(super) graph: Option<GraphProto>,
    #[prost(message, repeated, tag = "8")]
    pub(super) opset_import: Vec<OperatorSetIdProto>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct GraphProto {
    #[prost(message, repeated, tag = "1")]
    pub(super) node: Vec<NodeProto>,
    #[prost(message, repeated, tag = "5")]
    pub(super) initializer: Vec<TensorProto>,
    #[prost(message, repeated, tag = "12")]
    pub(super) output: Vec<ValueInfoProto>,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct NodeProto {
    #[prost(string, repeated, tag = "1")]
    pub(super) input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub(super) output: Vec<String>,
    #[prost(string, tag = "3")]
    pub(super) name: String,
    #[prost(string, tag = "4")]
    pub(super) op_type: String,
    #[prost(message, repeated, tag = "5")]
    pub(super) attribute: Vec<AttributeProto>,
    #[prost(string, tag = "7")]
    pub(super) domain: String,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct AttributeProto {
    /// `AttributeProto.AttributeType`: [`GRAPH`] or [`GRAPHS`] for a
    /// subgraph (`If`, `Loop`, `Scan`).
    #[prost(int32, tag = "20")]
    pub(super) r#type: i32,
}

/// `AttributeProto.AttributeType` values of subgraphs.
pub(super) const GRAPH: i32 = 5;
pub(super) const GRAPHS: i32 = 10;

#[derive(Clone, PartialEq, Message)]
pub(super) struct TensorProto {
    #[prost(int64, repeated, tag = "1")]
    pub(super) dims: Vec<i64>,
    #[prost(int32, tag = "2")]
    pub(super) data_type: i32,
    #[prost(float, repeated, tag = "4")]
    pub(super) float_data: Vec<f32>,
    #[prost(string, tag = "8")]
    pub(super) name: String,
    #[prost(bytes = "bytes", tag = "9")]
    pub(super) raw_data: Bytes,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct ValueInfoProto {
    #[prost(string, tag = "1")]
    pub(super) name: String,
}

#[derive(Clone, PartialEq, Message)]
pub(super) struct OperatorSetIdProto {
    #[prost(string, tag = "1")]
    pub(super) domain: String,
    #[prost(int64, tag = "2")]
    pub(super) version: i64,
}

/// ONNX `TensorProto.DataType` values.
const FLOAT: i32 = 1;
const INT8: i32 = 3;

/// What the scale of int8 weights applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Per {
    /// One scale per input row (`[rows, 1]`).
    Row,
    /// One scale per output column (`[1, cols]` or `[cols]`).
    Column,
    /// One scale for all (`[]` or `[1]`).
    All,
    /// One scale for all, in a tensor of another shape (`[1, 1]`): ONNX
    /// Runtime's integer product takes it, but scales in another order, so
    /// such a product stays in floats.
    AllReshaped,
}

impl Per {
    /// Whether ONNX Runtime's integer product (`DynamicQuantizeMatMul`)
    /// takes this scale as the built-in encoder computes it: per column or
    /// one for all, not per row. Each engine also asks [`INT8_PRODUCTS`].
    pub(super) fn runs_in_integers(self) -> bool {
        matches!(self, Per::Column | Per::All)
    }
}

/// Whether int8 weight products run in integers on this CPU: x86-64 only.
/// On aarch64 (the linux-arm64 build under qemu, `scripts/test-arm64.sh`)
/// ONNX Runtime 1.31.1's `DynamicQuantizeMatMul` gave vectors all alike
/// (every demo item within 0.88-0.92 of the best), while the built-in
/// encoder's integer products there gave the x86-64 ranking; whether qemu
/// or ONNX Runtime is at fault could not be told here, so other CPUs keep
/// the float products they had.
pub(super) const INT8_PRODUCTS: bool = cfg!(target_arch = "x86_64");

/// An int8 weight that the graph turns into floats: a `Cast` of an int8
/// initializer, then a `Mul` by a float initializer.
pub(super) struct Int8Weight {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) q: Bytes,
    pub(super) scale: Vec<f32>,
    pub(super) per: Per,
    /// The names of the int8 initializer and of the scale's.
    pub(super) q_name: String,
    pub(super) scale_name: String,
    /// The `Cast` and `Mul` nodes, by position in the graph.
    pub(super) nodes: [usize; 2],
}

/// The decoded graph, with lookups by tensor name.
pub(super) struct Graph {
    pub(super) model: ModelProto,
    initializers: HashMap<String, usize>,
    /// Output name → the position of the node that makes it.
    producer: HashMap<String, usize>,
}

impl Graph {
    /// Decodes an ONNX model; `None` when the bytes are not one.
    pub(super) fn decode(bytes: Bytes) -> Option<Graph> {
        let model = ModelProto::decode(bytes).ok()?;
        let graph = model.graph.as_ref()?;
        let initializers = graph
            .initializer
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        let mut producer = HashMap::new();
        for (i, node) in graph.node.iter().enumerate() {
            for out in &node.output {
                producer.insert(out.clone(), i);
            }
        }
        Some(Graph {
            model,
            initializers,
            producer,
        })
    }

    fn graph(&self) -> &GraphProto {
        self.model.graph.as_ref().expect("decode checked the graph")
    }

    pub(super) fn nodes(&self) -> &[NodeProto] {
        &self.graph().node
    }

    /// Whether any node holds a subgraph (`If`, `Loop`, `Scan`), whose
    /// nodes read names this decoder does not see.
    pub(super) fn has_subgraphs(&self) -> bool {
        self.nodes()
            .iter()
            .flat_map(|n| &n.attribute)
            .any(|a| a.r#type == GRAPH || a.r#type == GRAPHS)
    }

    pub(super) fn graph_outputs(&self) -> impl Iterator<Item = &str> {
        self.graph().output.iter().map(|o| o.name.as_str())
    }

    fn initializer(&self, name: &str) -> Option<&TensorProto> {
        self.initializers
            .get(name)
            .map(|&i| &self.graph().initializer[i])
    }

    /// The node whose output is `name`, and its position.
    pub(super) fn made_by(&self, name: &str) -> Option<(usize, &NodeProto)> {
        self.producer.get(name).map(|&i| (i, &self.nodes()[i]))
    }

    /// Every tensor name the graph knows: initializers and node outputs.
    pub(super) fn names(&self) -> impl Iterator<Item = &String> {
        self.initializers.keys().chain(self.producer.keys())
    }

    /// A float vector parameter (a bias, a layer norm's scale).
    pub(super) fn vector(&self, name: &str) -> Option<Vec<f32>> {
        float_values(self.initializer(name)?)
    }

    /// A 2-D float initializer: rows, columns and its little-endian bytes.
    pub(super) fn float_matrix(&self, name: &str) -> Option<(usize, usize, Bytes)> {
        let t = self.initializer(name)?;
        let (rows, cols) = two_dims(t)?;
        let bytes = if t.raw_data.is_empty() {
            let floats: Vec<u8> = t.float_data.iter().flat_map(|f| f.to_le_bytes()).collect();
            Bytes::from(floats)
        } else {
            t.raw_data.clone()
        };
        (t.data_type == FLOAT && bytes.len() == rows * cols * 4).then_some((rows, cols, bytes))
    }

    /// The int8 weight whose floats are the tensor `name`: the output of
    /// the `Mul` by a scale of the `Cast` of an int8 initializer.
    pub(super) fn int8_weight(&self, name: &str) -> Option<Int8Weight> {
        let (mul_at, mul) = self.made_by(name)?;
        if mul.op_type != "Mul" || mul.input.len() != 2 {
            return None;
        }
        let (cast_at, cast) = self.made_by(&mul.input[0])?;
        if cast.op_type != "Cast" {
            return None;
        }
        let q_name = cast.input.first()?;
        let q = self.initializer(q_name)?;
        let scale_tensor = self.initializer(&mul.input[1])?;
        let (rows, cols) = two_dims(q)?;
        if q.data_type != INT8 || q.raw_data.len() != rows * cols {
            return None;
        }
        let scale = float_values(scale_tensor)?;
        let per = match scale_tensor.dims.as_slice() {
            [1, c] | [c] if *c as usize == cols && scale.len() == cols => Per::Column,
            [r, 1] if *r as usize == rows && scale.len() == rows && rows > 1 => Per::Row,
            [] | [1] if scale.len() == 1 => Per::All,
            _ if scale.len() == 1 => Per::AllReshaped,
            _ => return None,
        };
        Some(Int8Weight {
            rows,
            cols,
            q: q.raw_data.clone(),
            scale,
            per,
            q_name: q_name.clone(),
            scale_name: mul.input[1].clone(),
            nodes: [cast_at, mul_at],
        })
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
        t.raw_data.len().is_multiple_of(4).then(|| {
            t.raw_data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        })
    }
}
