# A model whose params and functions have the long names of a published checkpoint, for
# the architecture view's layout: no label may run past the drawing or out of its box.

dim D = 64
dim Dff = 4 * D
dim H = 4
dim Dh = D / H
dim V = 256

model TransformerLanguageModel:
    param token_embedding_table_weight: [V D] = normal(std=0.02)
    param attention_query_key_value_projection_weight: [D 3*D] = normal(std=0.02)
    param attention_output_projection_weight: [D D] = normal(std=0.02)
    param feed_forward_intermediate_dense_weight: [D Dff] = normal(std=0.02)
    param feed_forward_output_dense_weight: [Dff D] = normal(std=0.02)

fn self_attention_with_causal_mask(language_model: TransformerLanguageModel, hidden_states: [b n D]) -> [b n D]:
    query_states, key_states, value_states = hidden_states @ language_model.attention_query_key_value_projection_weight
        |> split(b n (3 H Dh) -> b H n Dh)
    attention_probabilities = einsum(query_states, key_states: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(attention_probabilities, value_states: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(language_model.attention_output_projection_weight)

fn forward(language_model: TransformerLanguageModel, token_ids: [b n] Index[V]) -> [b n V] Logit over V:
    hidden_states = embedding(token_ids, language_model.token_embedding_table_weight)
    hidden_states = hidden_states + self_attention_with_causal_mask(language_model, hidden_states)
    hidden_states = hidden_states + (hidden_states @ language_model.feed_forward_intermediate_dense_weight |> gelu |> matmul(language_model.feed_forward_output_dense_weight))
    return linear(hidden_states, language_model.token_embedding_table_weight)
