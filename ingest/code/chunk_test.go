package code

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
)

// readTestdata returns the bytes of testdata/code/name.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "code", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// sym is the part of a chunk that the tables below spell out by hand.
type sym struct {
	Symbol, Kind, Sig string
	Start, End, Ord   int
}

func summarize(chunks []retrieval.Chunk) []sym {
	var out []sym
	for _, c := range chunks {
		out = append(out, sym{c.Symbol, c.SymbolKind, c.Signature, c.StartLine, c.EndLine, c.Ordinal})
	}
	return out
}

// wantContent returns what a chunk over lines from..to of src must hold: the
// lines without CR, invalid bytes as U+FFFD, prefixed by the signature for a
// window after the first one of a split symbol.
func wantContent(src []byte, c retrieval.Chunk) string {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	body := strings.ToValidUTF8(strings.Join(lines[c.StartLine-1:c.EndLine], "\n"), "\uFFFD")
	if c.SymbolKind != "window" && c.Ordinal > 0 && !strings.HasPrefix(body, c.Signature) {
		return c.Signature + "\n...\n" + body
	}
	return body
}

func TestChunk(t *testing.T) {
	tests := []struct {
		name, file   string
		opt          Options
		wantLang     string
		wantFallback string
		want         []sym
	}{
		{
			name: "python decorated methods", file: "retry_client.py", wantLang: "python",
			want: []sym{
				{"retry", "function", "def retry(times=3, delay=0.5)", 8, 19, 0},
				{"BillingClient", "class", "class BillingClient", 22, 44, 0},
				{"BillingClient.__init__", "method", "def __init__(self, base_url, session)", 27, 29, 0},
				{"BillingClient.invoice_url", "method", "def invoice_url(base_url, invoice_id)", 31, 34, 0},
				{"BillingClient.fetch_invoice", "method", "def fetch_invoice(self, invoice_id)", 36, 44, 0},
			},
		},
		{
			name: "go receivers types vars and two inits", file: "store.go", wantLang: "go",
			want: []sym{
				{"DefaultTTL", "const", "const DefaultTTL = 5 * time.Minute", 11, 12, 0},
				{"DefaultRouteOpts", "var", "var (\n\tDefaultRouteOpts = RouteOpts{Timeout: 30 * time.Second, Retries: 2}", 14, 18, 0},
				{"RouteOpts", "type", "type RouteOpts struct", 20, 24, 0},
				{"Loader", "interface", "type Loader[T any] interface", 26, 29, 0},
				{"Store", "type", "type Store[T any] struct", 31, 36, 0},
				{"entry", "type", "type entry[T any] struct", 38, 41, 0},
				{"init", "function", "func init()", 43, 45, 0},
				{"Store.Get", "method", "func (s *Store[T]) Get(ctx context.Context, key string) (T, error)", 47, 62, 0},
				{"Store.Put", "method", "func (s *Store[T]) Put(key string, value T, ttl time.Duration)", 64, 69, 0},
				{"entry.expired", "method", "func (e entry[T]) expired(now time.Time) bool", 71, 71, 0},
				{"init", "function", "func init()", 73, 75, 1},
				{"RouteOpts.Validate", "method", "func (o *RouteOpts) Validate() error", 77, 83, 0},
			},
		},
		{
			name: "typescript class with jsdoc and decorator", file: "user_service.ts", wantLang: "typescript",
			want: []sym{
				{"User", "interface", "export interface User", 4, 9, 0},
				{"UserId", "type", `export type UserId = User["id"]`, 11, 11, 0},
				{"UserService", "class", "export class UserService", 13, 34, 0},
				{"UserService.constructor", "method", "constructor(private readonly repo: Repository<User>)", 20, 20, 0},
				{"UserService.findByEmail", "method", "async findByEmail(email: string): Promise<User | undefined>", 22, 29, 0},
				{"UserService.invalidate", "method", "invalidate(id: UserId): void", 31, 33, 0},
				{"normalizeEmail", "function", "export const normalizeEmail = (email: string): string =>", 36, 37, 0},
			},
		},
		{
			name: "javascript functions assigned to properties", file: "http_error.js", wantLang: "javascript",
			want: []sym{
				{"HttpError", "function", "function HttpError(message, code)", 5, 12, 0},
				{"HttpError.toJSON", "method", "HttpError.prototype.toJSON = function toJSON()", 14, 17, 0},
				{"HttpError.from", "method", "HttpError.from = (error, code) =>", 19, 26, 0},
				{"isHttpError", "function", "module.exports.isHttpError = function isHttpError(value)", 28, 30, 0},
			},
		},
		{
			name: "tsx component", file: "UserBadge.tsx", wantLang: "typescript",
			want: []sym{
				{"UserBadgeProps", "interface", "interface UserBadgeProps", 3, 6, 0},
				{"UserBadge", "function", "export function UserBadge({ name, admin = false }: UserBadgeProps)", 8, 15, 0},
			},
		},
		{
			name: "java annotated methods with javadoc", file: "UserRepository.java", wantLang: "java",
			want: []sym{
				{"UserRepository", "class", "public class UserRepository extends JdbcRepository<User>", 7, 35, 0},
				{"UserRepository.UserRepository", "method", "public UserRepository(DataSource dataSource)", 15, 17, 0},
				{"UserRepository.findByEmail", "method", "public Optional<User> findByEmail(String email)", 19, 29, 0},
				{"UserRepository.disable", "method", "public void disable(long id)", 31, 34, 0},
			},
		},
		{
			name: "long class keeps its header", file: "UserRepository.java", wantLang: "java",
			opt: Options{MaxLines: 20},
			want: []sym{
				{"UserRepository", "class", "public class UserRepository extends JdbcRepository<User>", 7, 13, 0},
				{"UserRepository.UserRepository", "method", "public UserRepository(DataSource dataSource)", 15, 17, 0},
				{"UserRepository.findByEmail", "method", "public Optional<User> findByEmail(String email)", 19, 29, 0},
				{"UserRepository.disable", "method", "public void disable(long id)", 31, 34, 0},
			},
		},
		{
			name: "long function becomes windows", file: "routes.go", wantLang: "go",
			want: []sym{
				{"Server.registerRoutes", "method", "func (s *Server) registerRoutes(mux *http.ServeMux)", 5, 64, 0},
				{"Server.registerRoutes", "method", "func (s *Server) registerRoutes(mux *http.ServeMux)", 65, 124, 1},
				{"Server.registerRoutes", "method", "func (s *Server) registerRoutes(mux *http.ServeMux)", 125, 177, 2},
				{"Server.health", "method", "func (s *Server) health(w http.ResponseWriter, r *http.Request)", 179, 182, 0},
			},
		},
		{
			name: "syntax error falls back to windows", file: "broken_handler.py", wantLang: "python",
			opt:          Options{WindowLines: 10, Overlap: 3},
			wantFallback: "parse error",
			want: []sym{
				{"", "window", "", 1, 10, 0},
				{"", "window", "", 8, 16, 1},
				{"", "window", "", 15, 21, 2},
			},
		},
		{
			// Discount misses the value of an assignment: only it and its
			// doc comment become windows.
			name: "go file with one broken function keeps the others", file: "broken_func.go", wantLang: "go",
			wantFallback: "parse error",
			want: []sym{
				{"Invoice", "type", "type Invoice struct", 5, 9, 0},
				{"Invoice.Validate", "method", "func (i Invoice) Validate() error", 11, 17, 0},
				{"", "window", "", 19, 26, 0},
				{"Invoice.Format", "method", "func (i Invoice) Format() string", 28, 31, 0},
				{"currency", "const", `const currency = "EUR"`, 33, 33, 0},
			},
		},
		{
			name: "python file with one broken function keeps the others", file: "partial_report.py", wantLang: "python",
			wantFallback: "parse error",
			want: []sym{
				{"read_rows", "function", "def read_rows(path)", 4, 7, 0},
				{"", "window", "", 10, 13, 0},
				{"Report", "class", "class Report", 16, 21, 0},
				{"Report.__init__", "method", "def __init__(self, rows)", 17, 18, 0},
				{"Report.count", "method", "def count(self)", 20, 21, 0},
			},
		},
		{
			// Cart.add misses a ")": Cart keeps only its header, its other
			// methods stay symbols.
			name: "python class with one broken method", file: "partial_cart.py", wantLang: "python",
			wantFallback: "parse error",
			want: []sym{
				{"Cart", "class", "class Cart", 1, 2, 0},
				{"Cart.__init__", "method", "def __init__(self)", 4, 5, 0},
				{"", "window", "", 7, 8, 0},
				{"Cart.count", "method", "def count(self)", 10, 11, 0},
				{"empty_cart", "function", "def empty_cart()", 14, 15, 0},
			},
		},
		{
			// total misses a ")": its for block closes the method and the
			// class early, so isEmpty lands outside the class and is kept
			// as lines in the window up to the error at the last "}".
			name: "java class with one broken method", file: "PartialInvoiceService.java", wantLang: "java",
			wantFallback: "parse error",
			want: []sym{
				{"PartialInvoiceService", "class", "public class PartialInvoiceService", 5, 7, 0},
				{"PartialInvoiceService.PartialInvoiceService", "method", "public PartialInvoiceService(Mailer mailer)", 9, 11, 0},
				{"PartialInvoiceService.sendAll", "method", "public void sendAll(List<Invoice> invoices)", 13, 18, 0},
				{"", "window", "", 20, 32, 0},
			},
		},
		{
			// Go 1.26's new(expr) is outside tree-sitter-go's grammar; patchGoNewMake.
			name: "go new with an expression", file: "new_expr.go", wantLang: "go",
			want: []sym{
				{"Matcher", "type", "type Matcher struct", 5, 9, 0},
				{"NewMatcher", "function", "func NewMatcher(name string, expired bool) Matcher", 11, 17, 0},
				{"Names", "function", "func Names() *[]string", 19, 24, 0},
			},
		},
		{
			// Go 1.24's generic type aliases are outside the bundled grammar;
			// patchGoGenericAlias.
			name: "go generic type aliases", file: "generic_alias.go", wantLang: "go",
			want: []sym{
				{"Set", "type", "type Set[K comparable] = map[K]struct{}", 3, 4, 0},
				{"Pairs", "type", "type Pairs[K comparable, V any] = map[K][]V", 7, 8, 0},
				{"Count", "type", "type Count                      = int", 9, 9, 0},
				{"Has", "function", "func Has[K comparable](s Set[K], k K) bool", 12, 16, 0},
			},
		},
		{
			// A bare "&" in JSX text is outside the grammar; patchJSXAmpersand.
			name: "tsx ampersand in jsx text", file: "AboutMenu.tsx", wantLang: "typescript",
			want: []sym{
				{"AboutMenu", "function", "export const AboutMenu = () =>", 3, 12, 0},
				{"Footer", "function", "export function Footer({ year }: { year: number })", 14, 16, 0},
			},
		},
		{
			name: "python script with top-level code", file: "migrate_orders.py", wantLang: "python",
			want: []sym{
				{"", "window", "", 1, 6, 0},
				{"copy_batch", "function", "def copy_batch(src, dst, rows)", 9, 16, 0},
				{"", "window", "", 19, 41, 1},
			},
		},
		{
			name: "latin-1 file keeps its lines", file: "latin1_units.go", wantLang: "go",
			want: []sym{
				{"SizeLabel", "function", "func SizeLabel(n int) string", 4, 8, 0},
				{"Label", "function", "func Label(n int) string", 10, 11, 0},
			},
		},
		{
			name: "ruby has no grammar", file: "deploy.rb", wantLang: "ruby",
			wantFallback: "no grammar",
			want:         []sym{{"", "window", "", 1, 9, 0}},
		},
		{
			name: "text file has no language", file: "RELEASE.txt", wantLang: "",
			wantFallback: "no grammar",
			want:         []sym{{"", "window", "", 1, 4, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := readTestdata(t, tt.file)
			got := Chunk(tt.file, src, tt.opt)
			if got.Fallback != tt.wantFallback {
				t.Errorf("Fallback = %q, want %q", got.Fallback, tt.wantFallback)
			}
			if diff := cmp.Diff(tt.want, summarize(got.Chunks)); diff != "" {
				t.Errorf("chunks mismatch (-want +got):\n%s", diff)
			}
			for _, c := range got.Chunks {
				if c.Kind != retrieval.KindCode || c.Path != tt.file || c.Language != tt.wantLang {
					t.Errorf("chunk %q %d-%d: kind, path, language = %q, %q, %q, want code, %q, %q",
						c.Symbol, c.StartLine, c.EndLine, c.Kind, c.Path, c.Language, tt.file, tt.wantLang)
				}
				if diff := cmp.Diff(wantContent(src, c), c.Content); diff != "" {
					t.Errorf("chunk %q %d-%d content mismatch (-want +got):\n%s", c.Symbol, c.StartLine, c.EndLine, diff)
				}
			}
		})
	}
}
