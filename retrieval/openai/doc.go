// Package openai speaks the OpenAI-compatible HTTP API that OpenAI, Ollama,
// vLLM and Hugging Face TEI serve: Embedder calls POST /embeddings
// (a retrieval.Embedder), and Summarizer calls POST /chat/completions for
// the optional two-sentence answer above the snippets, kept only when it
// cites the snippets and names nothing they lack (a retrieval.Summarizer).
// Both share one client that sends the bearer key, never puts it in errors,
// and retries rate limits and server errors.
package openai
