package rag

import (
	"context"
	"strings"
	"testing"
)

// TestSecretsNeverIndexed is the attack of a model that asks rag what
// `cat .env` would have asked about: the files the shell policy treats as
// secrets (.env, keys, credential stores) are never indexed, so no answer
// quotes them and no embeddings endpoint is sent their text — also when
// the editor has them open; a committed .env.example is indexed.
func TestSecretsNeverIndexed(t *testing.T) {
	for _, git := range []bool{false, true} {
		name := map[bool]string{false: "walk", true: "git"}[git]
		t.Run(name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			root := t.TempDir()
			if git {
				gitInit(t, root)
			}
			writeTree(t, root, map[string]string{
				"main.go":          "package main\n\n// token handling for the client\nfunc token() {}\n",
				".env":             "TOKEN=zanzibarsecret\n",
				".env.local":       "TOKEN=zanzibarlocal\n",
				"deploy/id_rsa":    "-----BEGIN token quokkakey-----\n",
				".ssh/config":      "Host x token quokkaconfig\n",
				".git-credentials": "https://u:quokkacred@example.com token\n",
				".env.example":     "TOKEN=placeholder\n",
			})
			emb := &conceptEmbed{}
			s := New(root, Options{Wait: testWait, Embed: emb.embed, EmbedModel: "fake"})
			ctx := context.Background()
			buffers := map[string]string{".env": "TOKEN=zanzibarbuffer\n"}
			for _, q := range []string{"token", "zanzibarsecret quokkakey quokkaconfig quokkacred zanzibarlocal zanzibarbuffer", "env", "id_rsa"} {
				got, err := s.SearchBuffers(ctx, q, buffers)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				got = strings.ReplaceAll(got, q, "") // the answer names the question
				for _, w := range []string{"zanzibar", "quokka", "id_rsa", ".env\n", ".env.local", ".git-credentials"} {
					if strings.Contains(got, w) {
						t.Errorf("%q: the answer holds %q:\n%s", q, w, got)
					}
				}
			}
			s.mu.Lock()
			for path := range s.ix.byPath {
				if path != "main.go" && path != ".env.example" {
					t.Errorf("indexed %s", path)
				}
			}
			for term := range s.ix.termIDs {
				if strings.Contains(term, "zanzibar") || strings.Contains(term, "quokka") {
					t.Errorf("the index holds the word %q", term)
				}
			}
			s.mu.Unlock()
			if len(emb.sent) == 0 {
				t.Fatal("nothing was embedded: the test does not reach the endpoint")
			}
			for _, text := range emb.sent {
				if strings.Contains(text, "\n") && (strings.Contains(text, "zanzibar") || strings.Contains(text, "quokka")) {
					t.Errorf("sent to the embeddings endpoint: %q", text)
				}
			}
		})
	}
}
