// Package settings is agentls's configuration: one type for the keys of
// the "agentls" section, wherever they come from — the editor
// (initializationOptions, workspace/didChangeConfiguration,
// workspace/configuration), the user's settings file, or the workspace's
// .agentls/settings.json — with their defaults, environment fallbacks,
// validation and unknown-key reports.
//
// It also holds the trust rule for settings (DESIGN §8a): a key that
// widens what runs or where data goes ("security-relevant") is taken only
// from a source the user controls — the editor, the user's file, or a
// workspace file whose exact content the user trusted (trust.go). A cloned
// repository, or an agent that writes .agentls/settings.json, cannot grant
// itself anything.
//
// # Keys
//
// Every key is one row of a table in settings.go: its name, how it is
// decoded and checked, and its risk — what it could do that a repository
// must not decide. A key with a risk is security-relevant (SecurityKeys);
// TestEveryKeyIsDocumented keeps the table and the struct's fields in
// step, and TestHostileWorkspaceFileGrantsNothing checks that an
// untrusted file sets none of the risky keys. Settings.Apply decodes each
// key on its own: a bad value is a Problem and the previous value stays;
// an untrusted source's risky key is a Problem with Ignored set.
//
// # Sources
//
// Load lays the defaults (with environment fallbacks such as
// OPENAI_BASE_URL and AGENTLS_MODEL), then the user's file, then the
// workspace's; the front-end puts the editor's settings or its flags on
// top with a trusted Source.
//
// # A leaf
//
// settings imports nothing of agentls but internal/*. The checks of keys
// whose meaning another package owns (command patterns, MCP entries, host
// globs) arrive as a Checks value, built by agent.SettingChecks; turning
// settings into what a tool takes is the tool side's (agent.ToolOptionsOf
// and its neighbours). So every layer may read settings.
//
// # Trust
//
// Trust keeps, per workspace in the state folder, the SHA-256 of the
// workspace file's content the user trusted (agentls trust, the
// agentls.trust code action): a changed byte, or the same file in another
// clone, is untrusted again. Trust.GrantWhile (the demo's) holds only
// while the granting process runs, so a killed demo leaves no trusted
// file behind. PrivateDirs are the user's own agentls folders, which no
// agent edit may change unasked.
package settings
