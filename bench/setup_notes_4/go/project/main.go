// Command fieldbook builds static sites from Markdown lab and field notebooks.
package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"
	"github.com/tdewolff/minify/v2"
	mhtml "github.com/tdewolff/minify/v2/html"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/extension"
	"gopkg.in/yaml.v3"
)

var (
	version = "dev"
	commit  = "none"
)

type siteConfig struct {
	Title   string `yaml:"title"`
	BaseURL string `yaml:"base_url"`
	Output  string `yaml:"output"`
}

func loadConfig(dir string) (siteConfig, error) {
	cfg := siteConfig{Output: "public"}
	raw, err := os.ReadFile(filepath.Join(dir, "fieldbook.yaml"))
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return cfg, fmt.Errorf("parse config: %w", err)
	}
	return cfg, nil
}

func build(dir string) error {
	cfg, err := loadConfig(dir)
	if err != nil {
		return err
	}
	md := goldmark.New(goldmark.WithExtensions(
		extension.GFM,
		extension.Footnote,
		highlighting.NewHighlighting(
			highlighting.WithStyle("github"),
			highlighting.WithFormatOptions(chromahtml.WithClasses(true)),
		),
	))
	m := minify.New()
	m.AddFunc("text/html", mhtml.Minify)

	var pages []string
	root := filepath.Join(dir, "content")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("walk content: %w", err)
	}
	sort.Strings(pages) // deterministic output

	for _, p := range pages {
		src, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		var buf bytes.Buffer
		if err := md.Convert(src, &buf); err != nil {
			return fmt.Errorf("render %s: %w", p, err)
		}
		rel, _ := filepath.Rel(root, p)
		out := filepath.Join(dir, cfg.Output, strings.TrimSuffix(rel, ".md")+".html")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("mkdir: %w", err)
		}
		page := fmt.Sprintf("<!doctype html><title>%s</title>%s", cfg.Title, buf.String())
		minified, err := m.String("text/html", page)
		if err != nil {
			return fmt.Errorf("minify %s: %w", p, err)
		}
		if err := os.WriteFile(out, []byte(minified), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
	}
	return nil
}

func serve(dir, addr string) error {
	if err := build(dir); err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watcher: %w", err)
	}
	defer w.Close()
	if err := w.Add(filepath.Join(dir, "content")); err != nil {
		return fmt.Errorf("watch content: %w", err)
	}
	go func() {
		for ev := range w.Events {
			if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create) {
				if err := build(dir); err != nil {
					log.Printf("rebuild: %v", err)
				}
			}
		}
	}()
	cfg, err := loadConfig(dir)
	if err != nil {
		return err
	}
	log.Printf("serving %s on http://%s", dir, addr)
	return http.ListenAndServe(addr, http.FileServer(http.Dir(filepath.Join(dir, cfg.Output))))
}

func main() {
	var dir, addr string
	rootCmd := &cobra.Command{Use: "fieldbook", Short: "Static sites from lab and field notebooks"}
	rootCmd.PersistentFlags().StringVar(&dir, "dir", ".", "site directory containing fieldbook.yaml")

	buildCmd := &cobra.Command{Use: "build", RunE: func(*cobra.Command, []string) error { return build(dir) }}
	serveCmd := &cobra.Command{Use: "serve", RunE: func(*cobra.Command, []string) error { return serve(dir, addr) }}
	serveCmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "listen address")
	versionCmd := &cobra.Command{Use: "version", Run: func(*cobra.Command, []string) {
		fmt.Printf("fieldbook %s (%s)\n", version, commit)
	}}

	rootCmd.AddCommand(buildCmd, serveCmd, versionCmd)
	if err := rootCmd.Execute(); err != nil {
		os.Exit(1)
	}
}
