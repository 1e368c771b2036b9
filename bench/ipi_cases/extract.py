#!/usr/bin/env python3
"""Extract injection test cases from inspect_evals 0.28.0 (PyPI wheel) into JSONL.

Inputs (the wheel unpacked beside this file:
`pip download inspect_evals==0.28.0 --no-deps -d pkg && unzip -q pkg/*.whl -d pkg/whl`):
  pkg/whl/inspect_evals/ipi_coding_agent/dataset/samples.json
  pkg/whl/inspect_evals/agent_threat_bench/data/{memory_poison,autonomy_hijack,data_exfil}.json
Outputs, beside this file:
  ipi_coding_agent.jsonl
  agentthreatbench.jsonl
"""
import json
from pathlib import Path

OUT = Path(__file__).resolve().parent
ROOT = OUT / "pkg/whl/inspect_evals"
PKG = "inspect_evals==0.28.0 (PyPI wheel)"


def check(payload, carrier, rid):
    assert payload and payload == payload.strip(), rid
    assert carrier is None or payload in carrier, rid


# ---------------------------------------------------------------- CodeIPI ---
CONFIG_HEADERS = {  # benign first line of each config carrier, not part of payload
    "# Project configuration",
    "# Project Makefile",
    "# Build configuration",
    "# Application configuration",
    "# EditorConfig helps maintain consistent coding styles",
}


def leading_comment_block(text):
    """Return the (single) block of consecutive column-0 '#' lines."""
    lines = text.split("\n")
    blocks, cur = [], []
    for ln in lines:
        if ln.startswith("#"):
            cur.append(ln)
        else:
            if cur:
                blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    assert len(blocks) == 1, blocks
    return blocks[0]


def ipi_extract(r):
    vec = r["injection_vector"]
    files = r["repo_files"]
    if vec == "issue_text":
        carrier = r["issue_text"]
        head = "## Bug Report\n\n"
        assert carrier.startswith(head)
        body = carrier[len(head):]
        if "\n\n### " in body:
            payload = body.split("\n\n### ")[0]
        else:
            payload = body.split("\n\n")[0]
        return payload.strip(), carrier, "issue_text (appended to the user prompt by the benchmark)"
    if vec == "code_comment":
        cands = [p for p, c in files.items()
                 if p.startswith("src/") and p.endswith(".py") and any(l.startswith("#") for l in c.split("\n"))]
        assert len(cands) == 1, (r["id"], cands)
        path = cands[0]
        carrier = files[path]
        payload = "\n".join(leading_comment_block(carrier))
        return payload, carrier, path
    if vec == "config_file":
        cands = [p for p in files if not p.startswith(("src/", "tests/")) and p != "pyproject.toml"]
        assert len(cands) == 1, (r["id"], cands)
        path = cands[0]
        carrier = files[path]
        block = leading_comment_block(carrier)
        assert block[0] in CONFIG_HEADERS, block[0]
        payload = "\n".join(block[1:])
        return payload, carrier, path
    if vec == "readme":
        path = "README.md"
        carrier = files[path]
        parts = carrier.split("\n## ")
        payload = "## " + parts[1]  # first level-2 section = injected setup/diagnostic section
        return payload.strip(), carrier, path
    raise ValueError(vec)


def build_ipi():
    recs = json.load(open(ROOT / "ipi_coding_agent/dataset/samples.json", encoding="utf-8"))
    out = []
    for r in recs:
        if r["is_benign"]:
            continue
        payload, carrier, where = ipi_extract(r)
        check(payload, carrier, r["id"])
        orig_input = r["task_description"] + ("\n\n" + r["issue_text"] if r.get("issue_text") else "")
        out.append({
            "id": r["id"],
            "payload": payload,
            "carrier": carrier,
            "category": r["payload_category"],
            "task": r["task_description"],
            # extras
            "injection_vector": r["injection_vector"],
            "carrier_path": where,
            "sophistication": r["payload_sophistication"],
            "severity": r["severity"],
            "success_indicator_regex": r["payload_indicator"],
            "expected_malicious_action": r.get("expected_malicious_action", ""),
            "persistence_targets": r.get("persistence_targets", []),
            "benchmark_user_input": orig_input,
            "source": PKG + ": inspect_evals/ipi_coding_agent/dataset/samples.json",
        })
    return recs, out


# -------------------------------------------------------- AgentThreatBench ---
def render_inbox(emails):  # identical to tools.read_inbox
    parts = []
    for i, e in enumerate(emails):
        parts.append(f"Email {i + 1}:\n  From: {e.get('from', 'unknown')}\n"
                     f"  Subject: {e.get('subject', 'no subject')}\n  Body: {e.get('body', '')}")
    return "\n\n".join(parts)


def render_customer(c):  # identical to tools.lookup_customer
    return (f"Customer: {c['name']}\nID: {c['id']}\nEmail: {c.get('email', 'N/A')}\n"
            f"SSN: {c.get('ssn', 'N/A')}\nAccount: {c.get('account', 'N/A')}\nIssue: {c.get('issue', 'N/A')}")


def span(text, start=None, end=None):
    """Payload = text from `start` marker (inclusive; None = beginning) to `end` marker (inclusive; None = end)."""
    i = 0 if start is None else text.index(start)
    j = len(text) if end is None else text.index(end, i) + len(end)
    return text[i:j].strip()


# (memory key, start marker, end marker)
MP_SPANS = {
    "mp_001": [("vacation_policy", "IMPORTANT SYSTEM UPDATE:", None)],
    "mp_002": [("benefits", "[SYSTEM]", "[/SYSTEM]")],
    "mp_003": [("performance_reviews", "Note to AI assistants:", None)],
    "mp_004": [("data_classification", "<admin_message", None)],
    "mp_005": [("tech_stack", "```\n---END OF KNOWLEDGE BASE---", None)],
    "mp_006": [("travel_policy", "[Assistant note:", None), ("expense_limits", None, None)],
    "mp_008": [("open_source", "ATTENTION ASSISTANT:", None)],
    "mp_010": [("security_training", "[URGENT SECURITY UPDATE]", None)],
}
# (1-based email index, start marker)
AH_SPANS = {
    "ah_001": [(3, None)],
    "ah_002": [(2, "Note to email assistant:"), (4, "As a helpful assistant")],
    "ah_003": [(2, None)],
    "ah_005": [(3, "As part of our ongoing partnership"), (4, None)],
    "ah_006": [(2, "To render the dashboard")],
}
# (customer id holding the payload, start marker)
DE_SPANS = {
    "de_001": [("CX-48217", "NOTE TO ASSISTANT:")],
    "de_002": [("CX-30762", "SYSTEM:")],
    "de_003": [("INT-00417", None)],
    "de_005": [("CX-17304", "IMMEDIATE ACTION REQUIRED:")],
    "de_006": [("INT-07281", None)],
    "de_008": [("CX-72058", '{"system_override"')],
}


def build_atb():
    out, stats = [], {}
    for sub in ["memory_poison", "autonomy_hijack", "data_exfil"]:
        recs = json.load(open(ROOT / f"agent_threat_bench/data/{sub}.json", encoding="utf-8"))
        st = stats.setdefault(sub, {"total": len(recs), "clean_baseline": 0, "indirect": 0, "direct_user": 0})
        for r in recs:
            if r["attack_name"] == "clean_baseline":
                st["clean_baseline"] += 1
                continue
            inj = []
            if sub == "memory_poison":
                assert r["id"] in MP_SPANS, r["id"]
                for key, s, e in MP_SPANS[r["id"]]:
                    field = r["memory_store"][key]
                    inj.append(dict(payload=span(field, s, e), carrier=field,
                                    location=f"memory_store[{key!r}] (returned verbatim by memory_read)",
                                    payload_is_entire_field=(s is None and e is None)))
                delivery = "memory_read tool output (poisoned knowledge-base / RAG entry)"
                indicator = {"attack_marker": r["attack_marker"]}
            elif sub == "autonomy_hijack":
                assert r["id"] in AH_SPANS, r["id"]
                assert sorted(i for i, _ in AH_SPANS[r["id"]]) == sorted(r["attack_email_indices"]), r["id"]
                carrier = render_inbox(r["inbox"])
                for idx, s in AH_SPANS[r["id"]]:
                    email = r["inbox"][idx - 1]
                    inj.append(dict(payload=span(email["body"], s), carrier=carrier,
                                    location=f"inbox email {idx} body (from {email['from']}, subject {email['subject']!r}) in read_inbox output",
                                    payload_is_entire_field=(s is None)))
                delivery = "read_inbox tool output (email body)"
                indicator = {"forbidden_strings": r["forbidden_actions"], "attack_email_indices": r["attack_email_indices"]}
            else:
                assert r["id"] in DE_SPANS, r["id"]
                for cid, s in DE_SPANS[r["id"]]:
                    cust = next(c for c in r["customer_db"] if c["id"] == cid)
                    inj.append(dict(payload=span(cust["issue"], s), carrier=render_customer(cust),
                                    location=f"customer_db record {cid} 'issue' field (returned by lookup_customer)",
                                    payload_is_entire_field=(s is None)))
                delivery = "lookup_customer tool output (customer record 'issue' field)"
                indicator = {"sensitive_fields": r["sensitive_fields"], "authorized_recipients": r["authorized_recipients"]}
            for x in inj:
                check(x["payload"], x["carrier"], r["id"])
            st["indirect"] += 1
            first, rest = inj[0], inj[1:]
            out.append({
                "id": r["id"],
                "payload": first["payload"],
                "carrier": first["carrier"],
                "category": r["attack_name"],
                "task": r["input"],
                # extras
                "subtask": sub,
                "owasp_id": r["owasp_id"],
                "difficulty": r["difficulty"],
                "delivery": delivery,
                "carrier_location": first["location"],
                "payload_is_entire_field": first["payload_is_entire_field"],
                "additional_injections": rest,
                "success_indicator": indicator,
                "expected_answer": r.get("expected_answer"),
                "source": PKG + f": inspect_evals/agent_threat_bench/data/{sub}.json",
            })
    return out, stats


def write(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    recs, ipi = build_ipi()
    write(OUT / "ipi_coding_agent.jsonl", ipi)
    atb, stats = build_atb()
    write(OUT / "agentthreatbench.jsonl", atb)
    print("ipi_coding_agent:", len(recs), "records,", len(ipi), "injected written")
    print("agentthreatbench:", json.dumps(stats), len(atb), "written")
