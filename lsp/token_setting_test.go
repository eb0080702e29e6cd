package lsp

import "testing"

// TestWithoutToken: a --listen token an editor sends again with its
// settings (Neovim's plugin answers workspace/configuration with them)
// is no setting: it is dropped, not reported as an unknown key.
func TestWithoutToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"model":"m","agentlsToken":"x"}`, `{"model":"m"}`},
		{`{"agentls":{"model":"m","agentlsToken":"x"}}`, `{"agentls":{"model":"m"}}`},
		{`{"model":"m"}`, `{"model":"m"}`},
		{`"agentlsToken"`, `"agentlsToken"`},
	} {
		if got := string(withoutToken([]byte(tc.in))); got != tc.want {
			t.Errorf("withoutToken(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	st := newSettingsStore(func(string) string { return "" })
	if problems := st.applyEditor([]byte(`{"model":"m","agentlsToken":"x"}`), "settings"); len(problems) != 0 {
		t.Errorf("problems %v", problems)
	}
}
