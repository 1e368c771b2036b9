//! The model's int8 weight products rewritten for ONNX Runtime's integer
//! kernels, before ONNX Runtime optimises the model ([`super::optimized`]).
//!
//! Why: the shipped model stores its 36 weight matrices in int8 with a scale
//! per column, and its graph turns them into floats (`Cast`, then `Mul` by
//! the scale) before each `MatMul`. ONNX Runtime folds those into float
//! weights, so every product ran in floats over 90 MB of them. Each such
//! `MatMul` becomes a `DynamicQuantizeMatMul` (com.microsoft) over the same
//! int8 values and scales: the input is quantized to `u8` at run time and
//! the product runs in integers (docs/search.md, "Model and ONNX Runtime",
//! has the speed and what it changes in the vectors). The built-in encoder
//! does the same arithmetic ([`super::native`]), so queries and items stay
//! comparable.
//!
//! The sums must be exact on every CPU ([`WeightSign`]): where ONNX
//! Runtime's kernel for signed weights would clip, the weights go in as
//! `u8` with a zero point of 128, whose kernel does not.
//!
//! The rewrite works on the protobuf's bytes: every field it does not
//! change is copied as it is, so nothing this crate's decoder does not know
//! (attributes, metadata, value infos) is lost.

use std::collections::{HashMap, HashSet};

use bytes::Bytes;
use prost::encoding::{decode_key, decode_varint, encode_key, encode_varint, WireType};
use prost::Message;

use super::onnx_graph::{Graph, NodeProto, OperatorSetIdProto, TensorProto, INT8_PRODUCTS};

/// The operator domain of ONNX Runtime's own operators.
const MICROSOFT: &str = "com.microsoft";
/// `ModelProto.graph`, `ModelProto.opset_import`, `GraphProto.node`.
const GRAPH_FIELD: u32 = 7;
const OPSET_FIELD: u32 = 8;
const NODE_FIELD: u32 = 1;
/// `GraphProto.initializer`, `TensorProto.name`.
const INITIALIZER_FIELD: u32 = 5;
const TENSOR_NAME_FIELD: u32 = 8;
/// ONNX `TensorProto.DataType` of `u8`.
const UINT8: i32 = 2;
/// The zero point of weights given as `u8`: `w + 128` for int8 `w`.
const ZERO_POINT_NAME: &str = "int8_products/zero_point_128";

/// How the int8 weights enter ONNX Runtime's integer product.
///
/// ONNX Runtime (MLAS) multiplies the `u8` input by signed weights with
/// VNNI's `vpdpbusd` where the CPU has it (AVX-512 VNNI, AVX-VNNI): exact.
/// Without VNNI, on AVX2 and on AVX-512 without it, it uses `vpmaddubsw`,
/// which adds two products in 16 bits and clips at 2^15 (255 × 128 × 2 is
/// 65,280): the vectors then depend on the CPU (cosine 0.991 median, 0.983
/// worst to the exact ones over 40 texts, docs/search.md). Its kernel for
/// `u8` weights widens both to 16 bits first (`vpmaddwd`) and is exact
/// everywhere, but ran the model at 0.76x the speed on a VNNI CPU
/// (docs/search.md). So: signed where the signed kernel is exact, unsigned
/// elsewhere, and the same sums on every x86-64 CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WeightSign {
    Signed,
    Unsigned,
}

impl WeightSign {
    /// The form whose kernel gives exact sums on this CPU.
    pub(super) fn here() -> WeightSign {
        match signed_products_clip() {
            true => WeightSign::Unsigned,
            false => WeightSign::Signed,
        }
    }

    /// Its name in the optimised copy's key.
    pub(super) fn name(self) -> &'static str {
        match self {
            WeightSign::Signed => "s8",
            WeightSign::Unsigned => "u8",
        }
    }
}

/// Whether ONNX Runtime's `u8` × `s8` kernel clips pairs of products on
/// this CPU: AVX2 without VNNI, as MLAS picks its kernels (`platform.cpp`:
/// AVX-VNNI unless AVX-512 core without AVX-512 VNNI overrides it).
#[cfg(target_arch = "x86_64")]
fn signed_products_clip() -> bool {
    use std::arch::is_x86_feature_detected as has;
    let vnni = has!("avx512vnni") || (has!("avxvnni") && !has!("avx512bw"));
    has!("avx2") && !vnni
}

#[cfg(not(target_arch = "x86_64"))]
fn signed_products_clip() -> bool {
    false
}

/// What becomes of a node.
enum Fate {
    Replaced(NodeProto),
    /// A `Cast` or `Mul` whose floats nothing reads any more.
    Dropped,
}

/// The model with its int8 weight products running in integers, the
/// weights given in `sign`'s form; `None` when it has none (a float
/// model), or the bytes are not a model.
pub(super) fn rewrite(model: &Bytes, sign: WeightSign) -> Option<Vec<u8>> {
    let graph = Graph::decode(model.clone())?;
    let plan = plan(&graph, sign);
    if plan.fates.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(model.len());
    for field in fields(model)? {
        match field.number {
            GRAPH_FIELD => {
                put_message(&mut out, GRAPH_FIELD, &rewrite_graph(field.payload, &plan)?)
            }
            _ => out.extend_from_slice(field.whole),
        }
    }
    let imports = &graph.model.opset_import;
    if !imports.iter().any(|o| o.domain == MICROSOFT) {
        let opset = OperatorSetIdProto {
            domain: MICROSOFT.into(),
            version: 1,
        };
        put_message(&mut out, OPSET_FIELD, &opset.encode_to_vec());
    }
    Some(out)
}

/// [`rewrite`] where int8 products run in integers on this CPU
/// ([`INT8_PRODUCTS`]), in the form exact here ([`WeightSign::here`]),
/// else `None`.
pub(super) fn rewrite_here(model: &Bytes) -> Option<Vec<u8>> {
    INT8_PRODUCTS
        .then(|| rewrite(model, WeightSign::here()))
        .flatten()
}

/// Whether the model in these bytes has products [`rewrite_here`] changes.
pub(super) fn applies(model: Bytes) -> bool {
    INT8_PRODUCTS
        && Graph::decode(model)
            .is_some_and(|graph| !plan(&graph, WeightSign::Signed).fates.is_empty())
}

/// What the rewrite changes.
#[derive(Default)]
struct Plan {
    /// The nodes that change, by position.
    fates: HashMap<usize, Fate>,
    /// Initializers added: the weights as `u8`, and their zero point.
    added: Vec<TensorProto>,
    /// Initializers nothing reads any more: int8 weights given as `u8`.
    dropped: HashSet<String>,
}

/// Each `MatMul` by an int8 weight with a scale per column (or one for
/// all) replaced, and the `Cast` and `Mul` left without a reader dropped;
/// with [`WeightSign::Unsigned`], the weights added as `u8` (and the int8
/// ones dropped once nothing reads them).
fn plan(graph: &Graph, sign: WeightSign) -> Plan {
    let mut plan = Plan::default();
    if graph.has_subgraphs() {
        // A subgraph's nodes may read a Cast or Mul this cannot see.
        return plan;
    }
    let mut readers: HashMap<&str, usize> = HashMap::new();
    let inputs = graph.nodes().iter().flat_map(|n| n.input.iter());
    for name in inputs.map(String::as_str).chain(graph.graph_outputs()) {
        *readers.entry(name).or_default() += 1;
    }
    for (at, node) in graph.nodes().iter().enumerate() {
        let plain_matmul = node.op_type == "MatMul" && node.domain.is_empty();
        if !plain_matmul || node.input.len() != 2 || node.output.len() != 1 {
            continue;
        }
        let Some(weight) = graph.int8_weight(&node.input[1]) else {
            continue;
        };
        if !weight.per.runs_in_integers() {
            continue;
        }
        let mut input = vec![
            node.input[0].clone(),
            weight.q_name.clone(),
            weight.scale_name,
        ];
        if sign == WeightSign::Unsigned {
            let name = format!("{}/u8", weight.q_name);
            if !plan.added.iter().any(|t| t.name == name) {
                plan.added
                    .push(unsigned(&name, &weight.q, [weight.rows, weight.cols]));
            }
            input[1] = name;
            input.push(ZERO_POINT_NAME.into());
        }
        let product = NodeProto {
            input,
            output: node.output.clone(),
            // Named after its output, which no other node makes: node
            // names may be empty or repeated, and ONNX Runtime refuses two
            // nodes of one name.
            name: format!("{}/int8", node.output[0]),
            op_type: "DynamicQuantizeMatMul".into(),
            attribute: vec![],
            domain: MICROSOFT.into(),
        };
        plan.fates.insert(at, Fate::Replaced(product));
        // The Mul, then the Cast, once nothing else reads their output;
        // then the int8 initializer, if it is given as u8 instead.
        let mut read = node.input[1].as_str();
        for at in weight.nodes.into_iter().rev() {
            if !unread_once_more(&mut readers, read) {
                break;
            }
            plan.fates.insert(at, Fate::Dropped);
            read = graph.nodes()[at].input[0].as_str();
            if read == weight.q_name
                && sign == WeightSign::Unsigned
                && unread_once_more(&mut readers, read)
            {
                plan.dropped.insert(weight.q_name.clone());
            }
        }
    }
    if !plan.added.is_empty() {
        plan.added.push(TensorProto {
            dims: vec![],
            data_type: UINT8,
            float_data: vec![],
            name: ZERO_POINT_NAME.into(),
            raw_data: Bytes::from_static(&[128]),
        });
    }
    plan
}

/// One reader of `name` fewer; whether none is left.
fn unread_once_more(readers: &mut HashMap<&str, usize>, name: &str) -> bool {
    let left = readers.get_mut(name).expect("every input counted");
    *left -= 1;
    *left == 0
}

/// Int8 weights `q` as `u8` with a zero point of 128: `w + 128` is `w`'s
/// bits with the top one flipped.
fn unsigned(name: &str, q: &[u8], [rows, cols]: [usize; 2]) -> TensorProto {
    TensorProto {
        dims: vec![rows as i64, cols as i64],
        data_type: UINT8,
        float_data: vec![],
        name: name.into(),
        raw_data: q.iter().map(|&b| b ^ 0x80).collect::<Vec<u8>>().into(),
    }
}

/// The graph's bytes with its nodes and initializers replaced, dropped or
/// added as `plan` says.
fn rewrite_graph(graph: &[u8], plan: &Plan) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(graph.len());
    let mut node_at = 0;
    for field in fields(graph)? {
        match field.number {
            NODE_FIELD => {
                match plan.fates.get(&node_at) {
                    Some(Fate::Replaced(node)) => {
                        put_message(&mut out, NODE_FIELD, &node.encode_to_vec())
                    }
                    Some(Fate::Dropped) => {}
                    None => out.extend_from_slice(field.whole),
                }
                node_at += 1;
            }
            // Names are read only when a weight is dropped (the u8 form).
            INITIALIZER_FIELD
                if !plan.dropped.is_empty()
                    && plan.dropped.contains(&tensor_name(field.payload)?) => {}
            _ => out.extend_from_slice(field.whole),
        }
    }
    for tensor in &plan.added {
        put_message(&mut out, INITIALIZER_FIELD, &tensor.encode_to_vec());
    }
    Some(out)
}

/// A `TensorProto`'s name, read without copying its data.
fn tensor_name(tensor: &[u8]) -> Option<String> {
    let name = fields(tensor)?
        .into_iter()
        .rfind(|f| f.number == TENSOR_NAME_FIELD)
        .map(|f| String::from_utf8_lossy(f.payload).into_owned());
    Some(name.unwrap_or_default())
}

/// One field of a protobuf message.
struct Field<'a> {
    number: u32,
    /// The field as written, key included.
    whole: &'a [u8],
    /// A length-delimited field's bytes (empty for other wire types).
    payload: &'a [u8],
}

/// A message's fields in order; `None` when the bytes are not a message.
fn fields(message: &[u8]) -> Option<Vec<Field<'_>>> {
    let mut out = Vec::new();
    let mut rest = message;
    while !rest.is_empty() {
        let mut buf = rest;
        let (number, wire) = decode_key(&mut buf).ok()?;
        let mut payload: &[u8] = &[];
        match wire {
            WireType::Varint => {
                decode_varint(&mut buf).ok()?;
            }
            WireType::SixtyFourBit => buf = buf.get(8..)?,
            WireType::ThirtyTwoBit => buf = buf.get(4..)?,
            WireType::LengthDelimited => {
                let len = usize::try_from(decode_varint(&mut buf).ok()?).ok()?;
                payload = buf.get(..len)?;
                buf = &buf[len..];
            }
            // Groups are deprecated, and ONNX has none.
            WireType::StartGroup | WireType::EndGroup => return None,
        }
        let used = rest.len() - buf.len();
        out.push(Field {
            number,
            whole: &rest[..used],
            payload,
        });
        rest = buf;
    }
    Some(out)
}

fn put_message(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    encode_key(number, WireType::LengthDelimited, out);
    encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::super::onnx_graph::{GraphProto, ModelProto, TensorProto, ValueInfoProto};
    use super::*;

    fn node(op: &str, input: &[&str], output: &str) -> NodeProto {
        NodeProto {
            input: input.iter().map(|s| s.to_string()).collect(),
            output: vec![output.into()],
            name: format!("{op}_{output}"),
            op_type: op.into(),
            attribute: vec![],
            domain: String::new(),
        }
    }

    fn tensor(name: &str, dims: &[i64], data_type: i32, bytes: usize) -> TensorProto {
        TensorProto {
            dims: dims.to_vec(),
            data_type,
            float_data: vec![],
            name: name.into(),
            raw_data: vec![1u8; bytes].into(),
        }
    }

    /// `y = x (q · s) + (x r) (p · t)`: the first weight scaled per column,
    /// the second per row (which ONNX Runtime's integer product cannot
    /// take); `q`'s floats are also a graph output.
    fn model(shared: bool) -> Vec<u8> {
        let mut nodes = vec![
            node("Cast", &["q"], "q_f"),
            node("Mul", &["q_f", "s"], "w"),
            node("MatMul", &["x", "w"], "xw"),
            node("Cast", &["p"], "p_f"),
            node("Mul", &["p_f", "t"], "v"),
            node("MatMul", &["xw", "v"], "y"),
        ];
        nodes[2].name = "first".into();
        let graph = GraphProto {
            node: nodes,
            initializer: vec![
                tensor("q", &[4, 3], 3, 12),
                tensor("s", &[1, 3], 1, 12),
                tensor("p", &[3, 2], 3, 6),
                tensor("t", &[3, 1], 1, 12),
            ],
            output: [Some("y"), shared.then_some("w")]
                .into_iter()
                .flatten()
                .map(|name| ValueInfoProto { name: name.into() })
                .collect(),
        };
        let mut bytes = ModelProto {
            graph: Some(graph),
            opset_import: vec![OperatorSetIdProto {
                domain: String::new(),
                version: 17,
            }],
        }
        .encode_to_vec();
        // `ir_version` (field 1): unknown to the decoder, kept as it is.
        bytes.extend([0x08, 0x09]);
        bytes
    }

    fn decoded(bytes: &[u8]) -> ModelProto {
        ModelProto::decode(bytes).unwrap()
    }

    #[test]
    fn a_product_by_weights_scaled_per_column_runs_in_integers() {
        let original = model(false);
        let rewritten = rewrite(&Bytes::from(original.clone()), WeightSign::Signed)
            .expect("one product to rewrite");
        let m = decoded(&rewritten);
        let nodes = &m.graph.as_ref().unwrap().node;
        let ops: Vec<&str> = nodes.iter().map(|n| n.op_type.as_str()).collect();
        // The per-column product replaced in place, its Cast and Mul gone;
        // the per-row one left to floats.
        assert_eq!(ops, ["DynamicQuantizeMatMul", "Cast", "Mul", "MatMul"]);
        assert_eq!(nodes[0].input, ["x", "q", "s"]);
        assert_eq!(nodes[0].output, ["xw"]);
        assert_eq!(
            (nodes[0].name.as_str(), nodes[0].domain.as_str()),
            ("xw/int8", MICROSOFT)
        );
        assert!(m
            .opset_import
            .iter()
            .any(|o| o.domain == MICROSOFT && o.version == 1));
        assert_eq!(m.opset_import.len(), 2, "the default domain's import kept");
        let kept = fields(&rewritten).unwrap();
        assert!(
            kept.iter()
                .any(|f| f.number == 1 && f.whole == [0x08, 0x09]),
            "unknown fields copied as they were"
        );
        assert_eq!(m.graph.unwrap().initializer.len(), 4);
        assert_eq!(applies(Bytes::from(original)), INT8_PRODUCTS);
    }

    #[test]
    fn floats_something_else_reads_are_kept() {
        let m = decoded(&rewrite(&Bytes::from(model(true)), WeightSign::Signed).unwrap());
        let ops: Vec<String> = m
            .graph
            .unwrap()
            .node
            .into_iter()
            .map(|n| n.op_type)
            .collect();
        assert_eq!(
            ops,
            [
                "Cast",
                "Mul",
                "DynamicQuantizeMatMul",
                "Cast",
                "Mul",
                "MatMul"
            ]
        );
    }

    /// A graph of these nodes over `q` (int8, `[4, 3]`) and `s` (`[1, 3]`).
    fn graph_of(nodes: Vec<NodeProto>, output: &[&str]) -> Bytes {
        let graph = GraphProto {
            node: nodes,
            initializer: vec![tensor("q", &[4, 3], 3, 12), tensor("s", &[1, 3], 1, 12)],
            output: output
                .iter()
                .map(|name| ValueInfoProto {
                    name: name.to_string(),
                })
                .collect(),
        };
        let model = ModelProto {
            graph: Some(graph),
            opset_import: vec![],
        };
        Bytes::from(model.encode_to_vec())
    }

    fn ops_and_names(bytes: &[u8]) -> Vec<(String, String)> {
        let nodes = decoded(bytes).graph.unwrap().node;
        nodes.into_iter().map(|n| (n.op_type, n.name)).collect()
    }

    /// `a = x w` and `b = y w`, one int8 weight `w` for both.
    fn two_products_of_one_weight() -> Vec<NodeProto> {
        vec![
            node("Cast", &["q"], "q_f"),
            node("Mul", &["q_f", "s"], "w"),
            node("MatMul", &["x", "w"], "a"),
            node("MatMul", &["y", "w"], "b"),
        ]
    }

    #[test]
    fn a_weight_two_products_share_goes_once_both_run_in_integers() {
        let mut nodes = two_products_of_one_weight();
        // Unnamed nodes get names of their own: ONNX Runtime refuses two
        // nodes of one name.
        nodes[2].name.clear();
        nodes[3].name.clear();
        let rewritten = rewrite(&graph_of(nodes, &["a", "b"]), WeightSign::Signed).unwrap();
        let dq = "DynamicQuantizeMatMul".to_string();
        assert_eq!(
            ops_and_names(&rewritten),
            [(dq.clone(), "a/int8".into()), (dq, "b/int8".into())]
        );
    }

    #[test]
    fn unsigned_weights_are_the_int8_ones_plus_128_with_that_zero_point() {
        let mut nodes = two_products_of_one_weight();
        nodes[2].name.clear();
        let mut model = decoded(&graph_of(nodes, &["a", "b"]));
        let q: Vec<u8> = [-128i8, -1, 0, 1, 127, 5, -5, 64, -64, 2, -2, 3]
            .iter()
            .map(|&v| v as u8)
            .collect();
        model.graph.as_mut().unwrap().initializer[0].raw_data = q.into();
        let rewritten = rewrite(&Bytes::from(model.encode_to_vec()), WeightSign::Unsigned).unwrap();
        let graph = decoded(&rewritten).graph.unwrap();
        for product in &graph.node {
            assert_eq!(product.op_type, "DynamicQuantizeMatMul");
            assert_eq!(product.input[1..], ["q/u8", "s", ZERO_POINT_NAME]);
        }
        let names: Vec<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
        // The int8 weight, read by nothing now, is gone; its u8 form added
        // once for both products.
        assert_eq!(names, ["s", "q/u8", ZERO_POINT_NAME]);
        let u8_weights = &graph.initializer[1];
        assert_eq!(
            (u8_weights.data_type, &u8_weights.dims[..]),
            (UINT8, &[4i64, 3][..])
        );
        let plus_128: Vec<u8> = [0u8, 127, 128, 129, 255, 133, 123, 192, 64, 130, 126, 131].into();
        assert_eq!(u8_weights.raw_data, plus_128);
        let zero = &graph.initializer[2];
        assert_eq!(
            (zero.data_type, zero.dims.len(), &zero.raw_data[..]),
            (UINT8, 0, &[128u8][..])
        );
    }

    #[test]
    fn an_int8_weight_something_else_reads_stays_beside_its_u8_form() {
        let nodes = vec![
            node("Cast", &["q"], "q_f"),
            node("Mul", &["q_f", "s"], "w"),
            node("MatMul", &["x", "w"], "a"),
            node("Identity", &["q"], "i"),
        ];
        let rewritten = rewrite(&graph_of(nodes, &["a", "i"]), WeightSign::Unsigned).unwrap();
        let graph = decoded(&rewritten).graph.unwrap();
        let names: Vec<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["q", "s", "q/u8", ZERO_POINT_NAME]);
    }

    #[test]
    fn a_cast_something_else_reads_stays_when_its_mul_goes() {
        let nodes = vec![
            node("Cast", &["q"], "q_f"),
            node("Mul", &["q_f", "s"], "w"),
            node("MatMul", &["x", "w"], "a"),
            node("Relu", &["q_f"], "r"),
        ];
        let rewritten = rewrite(&graph_of(nodes, &["a", "r"]), WeightSign::Signed).unwrap();
        let ops: Vec<String> = ops_and_names(&rewritten)
            .into_iter()
            .map(|(op, _)| op)
            .collect();
        assert_eq!(ops, ["Cast", "DynamicQuantizeMatMul", "Relu"]);
    }

    #[test]
    fn a_graph_with_subgraphs_is_left_alone() {
        let mut nodes = vec![
            node("Cast", &["q"], "q_f"),
            node("Mul", &["q_f", "s"], "w"),
            node("MatMul", &["x", "w"], "a"),
            node("If", &["c"], "i"),
        ];
        // An `If` whose branches (not decoded here) might read `q_f`.
        nodes[3].attribute = vec![super::super::onnx_graph::AttributeProto {
            r#type: super::super::onnx_graph::GRAPH,
        }];
        assert!(rewrite(&graph_of(nodes, &["a", "i"]), WeightSign::Signed).is_none());
    }

    #[test]
    fn a_model_without_int8_products_or_not_a_model_is_left_alone() {
        let float_model = ModelProto {
            graph: Some(GraphProto {
                node: vec![node("MatMul", &["x", "w"], "y")],
                initializer: vec![tensor("w", &[2, 2], 1, 16)],
                output: vec![],
            }),
            opset_import: vec![],
        };
        assert!(rewrite(
            &Bytes::from(float_model.encode_to_vec()),
            WeightSign::Unsigned
        )
        .is_none());
        assert!(!applies(Bytes::from(float_model.encode_to_vec())));
        assert!(rewrite(&Bytes::from_static(b"\xff\xff\xff"), WeightSign::Signed).is_none());
        assert!(fields(&[0x0a, 0x05, 1, 2]).is_none(), "a field cut short");
    }
}
