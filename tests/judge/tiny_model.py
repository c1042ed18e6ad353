"""Write a tiny Llama-architecture model in GGUF (with the `gguf` package),
for a real inference engine to serve in tests: llama.cpp through
llama-cpp-python's OpenAI-compatible server.

    python tiny_model.py OUT.gguf

No weights are downloaded, and none are trained: the model is built so that
what it says is known. Its layers are zero, so the residual stream is the
token embedding, which is the same vector for every token; the output
layer then gives every position the same fixed preference over the
vocabulary. Under a JSON-schema grammar (the engine's, not vcc's), greedy
decoding picks the most preferred token the grammar allows at each step:
`"` first (keys and an empty string close at once), then `5`, then `,`, so a
rubric's answer comes out as `{"score": 5, "rationale": ""}` in some key
order — a real, grammar-constrained completion from a real engine.

The vocabulary is SentencePiece-style: <unk>, <s>, </s> and the 256 byte
tokens, so any text tokenizes (by byte fallback).
"""

import sys

import gguf
import numpy as np

N_EMBD = 32
N_HEAD = 2
N_FF = 64
N_LAYER = 1
N_CTX = 8192

# The fixed preference of the output layer, by byte; every other token 0.
PREFERRED = {ord('"'): 8.0, ord("5"): 6.0, ord(","): 4.0, ord("}"): 2.0, ord(" "): -4.0, ord("\n"): -4.0}


def main(out):
    tokens = [b"<unk>", b"<s>", b"</s>"] + [f"<0x{b:02X}>".encode() for b in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256
    vocab = len(tokens)

    w = gguf.GGUFWriter(out, "llama")
    w.add_name("vcc-test-tiny")
    w.add_context_length(N_CTX)
    w.add_embedding_length(N_EMBD)
    w.add_block_count(N_LAYER)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD)
    w.add_rope_dimension_count(N_EMBD // N_HEAD)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_vocab_size(vocab)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * vocab)
    w.add_token_types(types)
    w.add_unk_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)

    f32 = np.float32
    # Every token embeds to the same vector: what comes out does not depend
    # on what went in.
    w.add_tensor("token_embd.weight", np.ones((vocab, N_EMBD), dtype=f32))
    w.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=f32))
    # After the RMS norm the hidden state is all ones, so each token's
    # logit is its row's sum: its preference.
    out_w = np.zeros((vocab, N_EMBD), dtype=f32)
    for byte, logit in PREFERRED.items():
        out_w[3 + byte, :] = logit / N_EMBD
    # The end of the text: what the grammar allows once it is complete.
    out_w[2, :] = 1.0 / N_EMBD
    w.add_tensor("output.weight", out_w)
    for i in range(N_LAYER):
        blk = f"blk.{i}"
        w.add_tensor(f"{blk}.attn_norm.weight", np.ones(N_EMBD, dtype=f32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(f"{blk}.{name}.weight", np.zeros((N_EMBD, N_EMBD), dtype=f32))
        w.add_tensor(f"{blk}.ffn_norm.weight", np.ones(N_EMBD, dtype=f32))
        w.add_tensor(f"{blk}.ffn_gate.weight", np.zeros((N_FF, N_EMBD), dtype=f32))
        w.add_tensor(f"{blk}.ffn_up.weight", np.zeros((N_FF, N_EMBD), dtype=f32))
        w.add_tensor(f"{blk}.ffn_down.weight", np.zeros((N_EMBD, N_FF), dtype=f32))

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main(sys.argv[1])
