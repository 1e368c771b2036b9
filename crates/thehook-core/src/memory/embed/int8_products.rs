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
//! The rewrite works on the protobuf's bytes: every field it does not
//! change is copied as it is, so nothing this crate's decoder does not know
//! (attributes, metadata, value infos) is lost.

use std::collections::HashMap;

use bytes::Bytes;
use prost::encoding::{decode_key, decode_varint, encode_key, encode_varint, WireType};
use prost::Message;

use super::onnx_graph::{Graph, NodeProto, OperatorSetIdProto, INT8_PRODUCTS};

/// The operator domain of ONNX Runtime's own operators.
const MICROSOFT: &str = "com.microsoft";
/// `ModelProto.graph`, `ModelProto.opset_import`, `GraphProto.node`.
const GRAPH_FIELD: u32 = 7;
const OPSET_FIELD: u32 = 8;
const NODE_FIELD: u32 = 1;

/// What becomes of a node.
enum Fate {
    Replaced(NodeProto),
    /// A `Cast` or `Mul` whose floats nothing reads any more.
    Dropped,
}

/// The model with its int8 weight products running in integers; `None`
/// when it has none (a float model), or the bytes are not a model.
pub(super) fn rewrite(model: &Bytes) -> Option<Vec<u8>> {
    let graph = Graph::decode(model.clone())?;
    let fates = plan(&graph);
    if fates.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(model.len());
    for field in fields(model)? {
        match field.number {
            GRAPH_FIELD => put_message(
                &mut out,
                GRAPH_FIELD,
                &rewrite_graph(field.payload, &fates)?,
            ),
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
/// ([`INT8_PRODUCTS`]), else `None`.
pub(super) fn rewrite_here(model: &Bytes) -> Option<Vec<u8>> {
    INT8_PRODUCTS.then(|| rewrite(model)).flatten()
}

/// Whether the model in these bytes has products [`rewrite_here`] changes.
pub(super) fn applies(model: Bytes) -> bool {
    INT8_PRODUCTS && Graph::decode(model).is_some_and(|graph| !plan(&graph).is_empty())
}

/// The nodes that change, by position: each `MatMul` by an int8 weight
/// with a scale per column (or one for all), and the `Cast` and `Mul` left
/// without a reader.
fn plan(graph: &Graph) -> HashMap<usize, Fate> {
    let mut fates = HashMap::new();
    if graph.has_subgraphs() {
        // A subgraph's nodes may read a Cast or Mul this cannot see.
        return fates;
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
        let product = NodeProto {
            input: vec![node.input[0].clone(), weight.q_name, weight.scale_name],
            output: node.output.clone(),
            // Named after its output, which no other node makes: node
            // names may be empty or repeated, and ONNX Runtime refuses two
            // nodes of one name.
            name: format!("{}/int8", node.output[0]),
            op_type: "DynamicQuantizeMatMul".into(),
            attribute: vec![],
            domain: MICROSOFT.into(),
        };
        fates.insert(at, Fate::Replaced(product));
        // The Mul, then the Cast, once nothing else reads their output.
        let mut read = node.input[1].as_str();
        for at in weight.nodes.into_iter().rev() {
            let left = readers.get_mut(read).expect("counted above");
            *left -= 1;
            if *left > 0 {
                break;
            }
            fates.insert(at, Fate::Dropped);
            read = graph.nodes()[at].input[0].as_str();
        }
    }
    fates
}

/// The graph's bytes with its nodes replaced or dropped as `fates` says.
fn rewrite_graph(graph: &[u8], fates: &HashMap<usize, Fate>) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(graph.len());
    let mut node_at = 0;
    for field in fields(graph)? {
        if field.number != NODE_FIELD {
            out.extend_from_slice(field.whole);
            continue;
        }
        match fates.get(&node_at) {
            Some(Fate::Replaced(node)) => put_message(&mut out, NODE_FIELD, &node.encode_to_vec()),
            Some(Fate::Dropped) => {}
            None => out.extend_from_slice(field.whole),
        }
        node_at += 1;
    }
    Some(out)
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
        let rewritten = rewrite(&Bytes::from(original.clone())).expect("one product to rewrite");
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
        let m = decoded(&rewrite(&Bytes::from(model(true))).unwrap());
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

    #[test]
    fn a_weight_two_products_share_goes_once_both_run_in_integers() {
        let mut nodes = vec![
            node("Cast", &["q"], "q_f"),
            node("Mul", &["q_f", "s"], "w"),
            node("MatMul", &["x", "w"], "a"),
            node("MatMul", &["y", "w"], "b"),
        ];
        // Unnamed nodes get names of their own: ONNX Runtime refuses two
        // nodes of one name.
        nodes[2].name.clear();
        nodes[3].name.clear();
        let rewritten = rewrite(&graph_of(nodes, &["a", "b"])).unwrap();
        let dq = "DynamicQuantizeMatMul".to_string();
        assert_eq!(
            ops_and_names(&rewritten),
            [(dq.clone(), "a/int8".into()), (dq, "b/int8".into())]
        );
    }

    #[test]
    fn a_cast_something_else_reads_stays_when_its_mul_goes() {
        let nodes = vec![
            node("Cast", &["q"], "q_f"),
            node("Mul", &["q_f", "s"], "w"),
            node("MatMul", &["x", "w"], "a"),
            node("Relu", &["q_f"], "r"),
        ];
        let rewritten = rewrite(&graph_of(nodes, &["a", "r"])).unwrap();
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
        assert!(rewrite(&graph_of(nodes, &["a", "i"])).is_none());
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
        assert!(rewrite(&Bytes::from(float_model.encode_to_vec())).is_none());
        assert!(!applies(Bytes::from(float_model.encode_to_vec())));
        assert!(rewrite(&Bytes::from_static(b"\xff\xff\xff")).is_none());
        assert!(fields(&[0x0a, 0x05, 1, 2]).is_none(), "a field cut short");
    }
}
