#!/usr/bin/env python3
"""Writes retrieval/embed/transformer/testdata/reference.json, the vectors the
Go package transformer must reproduce (TestReference, cosine >= 0.999).

Run from the repository root, after installing the models:

    bash scripts/install-model.sh all-minilm-l6-v2-q all-minilm-l6-v2 bge-small-en-v1.5-q e5-small-v2-q
    pip install onnxruntime==1.22.1 tokenizers==0.23.3 numpy
    python3 scripts/make-transformer-fixture.py

It runs each model's own ONNX file with Python onnxruntime, tokenizes with
Hugging Face tokenizers from the model's own tokenizer.json, and pools with
numpy as each model card says (mean of the real tokens for all-MiniLM-L6-v2
and e5-small-v2, the [CLS] token for bge-small-en-v1.5), then scales to unit
length. It shares no code with the Go package. Models not installed are left
out. The settings (prefixes, pooling, max tokens) are repeated here from the
model cards on purpose, so that a wrong entry in transformer.Specs shows.
Every text is run alone (batch of one), as the Go embedder does by default.
"""
import json
import os
import sys

import numpy as np
import onnxruntime
import tokenizers

MODELS = {
    # name: (pooling, max tokens, query prefix, passage prefix)
    "all-minilm-l6-v2-q": ("mean", 256, "", ""),
    "all-minilm-l6-v2": ("mean", 256, "", ""),
    "bge-small-en-v1.5-q": ("cls", 512, "Represent this sentence for searching relevant passages: ", ""),
    "e5-small-v2-q": ("mean", 512, "query: ", "passage: "),
}

GO_FUNCTION = '''// CutText returns text cut, when it is longer than maxTokens allows (at
// bytesPerToken), to a prefix that fits: at a line break in its last
// quarter, else at a character boundary; cut reports the cut. maxTokens
// <= 0 means no limit.
func CutText(text string, maxTokens int) (string, bool) {
	n := maxTokens * bytesPerToken
	if maxTokens <= 0 || len(text) <= n {
		return text, false
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	text = text[:n]
	if i := strings.LastIndexByte(text, '\\n'); i >= n*3/4 {
		text = text[:i+1]
	}
	return text, true
}

// Embed runs both embedders, one after the other, and joins their vectors;
// an error of either is returned, wrapped with its embedder's name.
func (p Pair) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	lex, err := p.Lexical.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	sem, err := p.EmbedSemantic(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(lex) != len(texts) || len(sem) != len(texts) {
		return nil, fmt.Errorf("embedders %s and %s returned %d and %d vectors for %d texts", p.Lexical.Name(), p.Semantic.Name(), len(lex), len(sem), len(texts))
	}
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = append(append(make([]float32, 0, len(lex[i])+len(sem[i])), lex[i]...), sem[i]...)
	}
	return out, nil
}
'''

QUESTION = "Where do we retry a request when the Slack API answers 429 Too Many Requests?"

MARKDOWN = """## Rollback

If the deploy fails its health checks, run `make rollback ENV=prod` from the
release branch. It restores the previous image tag and replays the database
migrations down to the last release; page the on-call engineer if a migration
cannot be reversed."""

TEXTS = {"go-function": GO_FUNCTION, "question": QUESTION, "markdown": MARKDOWN}


def model_dir():
    d = os.environ.get("RAGBOT_MODEL_DIR")
    if d:
        return d
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "ragbot", "models")


def pool(hidden, n, pooling):
    v = hidden[0, :1] if pooling == "cls" else hidden[0, :n]
    v = v.astype(np.float64).mean(axis=0)
    return v / np.linalg.norm(v)


def run(session, ids, pooling):
    ids = np.array([ids], dtype=np.int64)
    hidden = session.run(["last_hidden_state"], {
        "input_ids": ids,
        "attention_mask": np.ones_like(ids),
        "token_type_ids": np.zeros_like(ids),
    })[0]
    return pool(hidden, ids.shape[1], pooling)


def main():
    out = {"onnxruntime": onnxruntime.__version__, "tokenizers": tokenizers.__version__, "texts": TEXTS, "models": {}}
    root = model_dir()
    for name, (pooling, max_tokens, qprefix, pprefix) in MODELS.items():
        path = os.path.join(root, name)
        if not os.path.exists(os.path.join(path, name + ".onnx")):
            print(f"{name}: not installed in {path}, left out", file=sys.stderr)
            continue
        tok = tokenizers.Tokenizer.from_file(os.path.join(path, name + "-tokenizer.json"))
        tok.no_padding()
        tok.no_truncation()
        session = onnxruntime.InferenceSession(os.path.join(path, name + ".onnx"), providers=["CPUExecutionProvider"])
        cases = []
        for key, text in TEXTS.items():
            for kind, prefix in (("passage", pprefix), ("query", qprefix)):
                ids = tok.encode(prefix + text).ids
                head = ids[: max_tokens - 1] + [ids[-1]] if len(ids) > max_tokens else ids
                cases.append({"text": key, "kind": kind, "window": "head", "tokens": len(ids),
                              "vector": [round(float(x), 6) for x in run(session, head, pooling)]})
        out["models"][name] = cases
        print(f"{name}: {len(cases)} vectors", file=sys.stderr)
    dest = os.path.join(os.path.dirname(__file__), "..", "retrieval", "embed", "transformer", "testdata", "reference.json")
    # One line per vector, so that a diff shows which vector changed.
    models = out.pop("models")
    text = json.dumps(out, indent=1)[:-2] + ',\n "models": {\n'
    text += ",\n".join(
        f"  {json.dumps(name)}: [\n" + ",\n".join("   " + json.dumps(c) for c in cases) + "\n  ]"
        for name, cases in models.items())
    text += "\n }\n}\n"
    json.loads(text)
    with open(dest, "w") as f:
        f.write(text)
    print(f"wrote {os.path.normpath(dest)}", file=sys.stderr)


if __name__ == "__main__":
    main()
