// Package console is mnemo's web console: server-rendered pages
// (html/template) over the Engine, served by `mnemo serve` at /ui/, with
// htmx and cytoscape vendored as committed files (static/vendor, fetched
// and checked by scripts/console-assets.sh). Every asset is embedded:
// it works offline, from `go build` alone (docs/console.md).
//
// A page is two requests. The shell (/ui/…, any path, so deep links
// work) holds no data and needs no key; its script asks for the view's
// fragment (/ui/x/…, the same path) with the key the operator typed once
// (kept in the tab's sessionStorage, sent as an Authorization header,
// never in a URL). Fragments and edits go through the HTTP API's key
// check (Guard: httpapi.Server) and call the same Engine methods as the
// API, each bank authorized with the scope the API's route needs. No
// script is inline: the Content-Security-Policy allows scripts from the
// console's own files only.
package console

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/mnemo-ai/mnemo"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/server/httpapi"
)

// Prefix is where the console is served.
const Prefix = "/ui/"

// fragPrefix is where the shell's script finds a view's data: the view's
// path under Prefix, behind the key check.
const fragPrefix = "/ui/x/"

// CSP is the Content-Security-Policy of every console response: scripts,
// styles and connections from the console's own origin only (no inline
// script, no eval), no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// requestHeader is the header every fragment request carries (htmx sends
// HX-Request, the console's own fetches this one): a page of another
// site cannot send it without a CORS preflight the console never
// answers, so a key-less --insecure-local console cannot be driven by
// another site's forms.
const requestHeader = "X-Mnemo-Console"

//go:embed static
var staticFS embed.FS

//go:embed templates
var templateFS embed.FS

// Guard is the key check the console shares with the HTTP API;
// *httpapi.Server is one.
type Guard interface {
	// Protect runs h only for requests with a valid key (or local ones
	// under --insecure-local).
	Protect(h http.Handler) http.Handler
	// Authorize returns nil when the request's key may act on bank with
	// need; ENOTFOUND (as for an unknown bank) when it may not even read
	// it; EFORBIDDEN otherwise.
	Authorize(ctx context.Context, bank string, need httpapi.Scope) error
}

// Options configure a Console.
type Options struct {
	// Logger receives internal errors; nil means slog.Default().
	Logger *slog.Logger
}

// Console is the web console over one Engine: an http.Handler for the
// paths under Prefix, safe for concurrent use.
type Console struct {
	eng   *mnemo.Engine
	guard Guard
	log   *slog.Logger
	tmpl  *template.Template
	mux   *http.ServeMux
}

// New returns the console over eng, its keys checked by guard.
func New(eng *mnemo.Engine, guard Guard, opts Options) *Console {
	c := &Console{eng: eng, guard: guard, log: opts.Logger, mux: http.NewServeMux()}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.tmpl = template.Must(template.New("console").Funcs(funcs).ParseFS(templateFS, "templates/*.html"))
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.StripPrefix("/ui/static/", http.FileServerFS(static))
	c.mux.Handle("GET /ui/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // files only, no listings
			return
		}
		files.ServeHTTP(w, r)
	}))
	c.mux.HandleFunc("GET /ui/{$}", c.shell)
	c.mux.HandleFunc("GET /ui/{path...}", c.shell)
	c.routes() // views.go
	return c
}

// ServeHTTP implements http.Handler: the security headers, then the
// route.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if r.URL.Path == "/ui" {
		http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
		return
	}
	c.mux.ServeHTTP(w, r)
}

// shell answers every page path with the page frame: no data, just the
// path of the view's fragment for the script to load.
func (c *Console) shell(w http.ResponseWriter, r *http.Request) {
	src := fragPrefix + strings.TrimPrefix(r.URL.Path, Prefix)
	if r.URL.RawQuery != "" {
		src += "?" + r.URL.RawQuery
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := c.tmpl.ExecuteTemplate(w, "shell", map[string]string{"Src": src}); err != nil {
		c.log.Error("console: render shell", "err", err)
	}
}

// fragment is a view: it renders into w or returns an error, which the
// console renders as an error fragment with the API's status.
type fragment func(w http.ResponseWriter, r *http.Request) error

// handle registers a fragment at pattern (method and path under
// fragPrefix) behind the key check.
func (c *Console) handle(pattern string, f fragment) {
	c.mux.Handle(pattern, c.guard.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.Header.Get("HX-Request") == "" && r.Header.Get(requestHeader) == "" {
			c.fail(w, memory.Errorf(memory.EFORBIDDEN, "console requests come from the console's pages"))
			return
		}
		if err := f(w, r); err != nil {
			c.fail(w, err)
		}
	})))
}

// fail renders err as an error fragment with its HTTP status. An internal
// error's message is logged, not shown.
func (c *Console) fail(w http.ResponseWriter, err error) {
	code := memory.ErrorCode(err)
	status := httpapi.Status(code)
	msg := err.Error()
	if status >= 500 && code != memory.EUNAVAILABLE {
		c.log.Error("console", "err", err)
		msg = "internal error (see the server's log)"
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	c.tmpl.ExecuteTemplate(w, "error", map[string]any{"Status": status, "Code": code, "Message": msg})
}

// render executes template name with data into w, and tells htmx which
// page URL the fragment stands for (pushed into the history for forms).
func (c *Console) render(w http.ResponseWriter, r *http.Request, name string, data any) error {
	var b strings.Builder
	if err := c.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		return memory.Errorf(memory.EINTERNAL, "render %s: %v", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodGet && r.Header.Get("HX-Request") != "" && !strings.HasSuffix(r.URL.Path, "/counts") {
		page := Prefix + strings.TrimPrefix(r.URL.Path, fragPrefix)
		if r.URL.RawQuery != "" {
			page += "?" + r.URL.RawQuery
		}
		if !strings.HasSuffix(r.Header.Get("HX-Current-URL"), page) {
			w.Header().Set("HX-Push-Url", page)
		}
	}
	_, err := w.Write([]byte(b.String()))
	return err
}

// bank returns the request's {bank} when its key may act on it with need
// and it exists: the same answer (ENOTFOUND) for a bank the key may not
// read and for one that does not exist.
func (c *Console) bank(r *http.Request, need httpapi.Scope) (string, error) {
	bank := r.PathValue("bank")
	if err := c.guard.Authorize(r.Context(), bank, need); err != nil {
		return "", err
	}
	if _, err := c.eng.Bank(r.Context(), bank); err != nil {
		return "", err
	}
	return bank, nil
}

// can reports whether the request's key may act on bank with need: the
// pages show editing controls only when it may.
func (c *Console) can(r *http.Request, bank string, need httpapi.Scope) bool {
	return c.guard.Authorize(r.Context(), bank, need) == nil
}

// pageURL is the console URL of a bank's view, its segments escaped.
func pageURL(bank string, parts ...string) string {
	var b strings.Builder
	b.WriteString(Prefix + "banks/" + url.PathEscape(bank))
	for _, p := range parts {
		b.WriteString("/" + url.PathEscape(p))
	}
	return b.String()
}

// fragURL is the fragment URL of pageURL(bank, parts...).
func fragURL(bank string, parts ...string) string {
	return fragPrefix + strings.TrimPrefix(pageURL(bank, parts...), Prefix)
}

// invalid is an EINVALID error for a form field.
func invalid(field string, err error) error {
	var me *memory.Error
	if errors.As(err, &me) {
		return err
	}
	return memory.Errorf(memory.EINVALID, "%s: %v", field, err)
}
