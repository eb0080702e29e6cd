package acp

import (
	"context"
	"fmt"
	"slices"
	"sort"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/settings"
)

// The session's config options (session/set_config_option): the model,
// chosen among those the user's settings name (the model setting or
// $AGENTLS_MODEL, and the models the prices setting prices). The client
// picks one of them; it cannot name another, nor another endpoint.
const (
	configModel    = "model"
	configThinking = "thinking"
	configEdits    = "edits"
)

// The edits option's values: apply writes each edit call at once (the
// default); review holds its changes as pending hunks for /review.
const (
	editsApply  = "apply"
	editsReview = "review"
)

// thinkingValues are the thinking setting's values, as the option offers
// them.
var thinkingValues = []struct{ value, name string }{
	{"auto", "Auto: a call waits until the reply cannot turn out to be thinking"},
	{"tagged", "Tagged: the model tags its thinking; a call runs when complete"},
}

// settings are the session's settings with the model the client chose.
func (s *session) settings() settings.Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.set
	if s.model != "" {
		set.Model = s.model
	}
	if s.thinking != "" {
		set.Thinking = s.thinking
	}
	return set
}

// models are the models the client may choose among, the current one
// first ("" none: no model is configured).
func (s *session) models() (current string, all []string) {
	set := s.settings()
	current = set.Model
	if current == "" {
		current = s.a.opts.Getenv("AGENTLS_MODEL")
	}
	if current == "" {
		return "", nil
	}
	all = []string{current}
	if s.set.Model != "" && s.set.Model != current {
		all = append(all, s.set.Model)
	}
	if env := s.a.opts.Getenv("AGENTLS_MODEL"); env != "" && !slices.Contains(all, env) {
		all = append(all, env)
	}
	var priced []string
	for name := range s.set.Prices {
		if !slices.Contains(all, name) {
			priced = append(priced, name)
		}
	}
	sort.Strings(priced)
	return current, append(all, priced...)
}

// configOptions are the session's options as ACP shows them.
func (s *session) configOptions() []sdk.SessionConfigOption {
	out := []sdk.SessionConfigOption{}
	current, all := s.models()
	if current != "" {
		out = append(out, s.modelOption(current, all))
	}
	var th sdk.SessionConfigSelectOptionsUngrouped
	for _, v := range thinkingValues {
		th = append(th, sdk.SessionConfigSelectOption{Name: v.name, Value: sdk.SessionConfigValueId(v.value)})
	}
	t := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(s.settings().Thinking), sdk.SessionConfigSelectOptions{Ungrouped: &th})
	t.Select.Id, t.Select.Name = configThinking, "Thinking"
	t.Select.Description = sdk.Ptr("how the model marks its thinking (the thinking setting)")
	mode := editsApply
	if s.reviewing() {
		mode = editsReview
	}
	e := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(mode), sdk.SessionConfigSelectOptions{Ungrouped: &sdk.SessionConfigSelectOptionsUngrouped{
		{Name: "Apply: edits are written at once", Value: editsApply},
		{Name: "Review: edits wait as pending hunks; /review accepts or rejects them", Value: editsReview},
	}})
	e.Select.Id, e.Select.Name = configEdits, "Edits"
	e.Select.Category = sdk.Ptr(sdk.SessionConfigOptionCategoryMode)
	e.Select.Description = sdk.Ptr("whether the agent's edits are written at once or held for review")
	return append(out, t, e)
}

// modelOption is the model option, current first among all.
func (s *session) modelOption(current string, all []string) sdk.SessionConfigOption {
	var opts sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range all {
		opts = append(opts, sdk.SessionConfigSelectOption{Name: m, Value: sdk.SessionConfigValueId(m)})
	}
	o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(current), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id, o.Select.Name = configModel, "Model"
	o.Select.Category = sdk.Ptr(sdk.SessionConfigOptionCategoryModel)
	o.Select.Description = sdk.Ptr("the model the next turns use (the settings' model, or one the prices setting names)")
	return o
}

// SetSessionConfigOption sets one of the session's options for its
// next turns.
func (a *Agent) SetSessionConfigOption(_ context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, "agentls has no boolean options")
	}
	s, err := a.session(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	switch v.ConfigId {
	case configModel:
		_, all := s.models()
		if !slices.Contains(all, string(v.Value)) {
			return sdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, fmt.Sprintf("model %q is not one of %q", v.Value, all))
		}
		s.mu.Lock()
		s.model = string(v.Value)
		s.mu.Unlock()
	case configThinking:
		if !slices.ContainsFunc(thinkingValues, func(t struct{ value, name string }) bool { return t.value == string(v.Value) }) {
			return sdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, fmt.Sprintf("thinking %q is not auto or tagged", v.Value))
		}
		s.mu.Lock()
		s.thinking = string(v.Value)
		s.mu.Unlock()
	case configEdits:
		if v.Value != editsApply && v.Value != editsReview {
			return sdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, fmt.Sprintf("edits %q is not %s or %s", v.Value, editsApply, editsReview))
		}
		s.mu.Lock()
		s.review = v.Value == editsReview
		s.mu.Unlock()
		s.persist() // kept for session/load
	default:
		return sdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, fmt.Sprintf("no option %q (agentls has %q, %q and %q)", v.ConfigId, configModel, configThinking, configEdits))
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}
