package shelltool

import "github.com/agentls/agentls/tools"

// Tools are the tools a Host runs — shell, ipython and tmux — each bound
// in a turn to the Host host returns (see bind).
func Tools(host func() (*Host, error)) []tools.Tool {
	return []tools.Tool{ShellTool(host), IPythonTool(host), TmuxTool(host)}
}

// ShellTool is the shell tool, run in the Host host returns.
func ShellTool(host func() (*Host, error)) tools.Tool { return toolOf(shellSpec(), host) }

// IPythonTool is the ipython tool, run in the Host host returns.
func IPythonTool(host func() (*Host, error)) tools.Tool { return toolOf(ipythonSpec(), host) }

// TmuxTool is the tmux tool, run in the Host host returns.
func TmuxTool(host func() (*Host, error)) tools.Tool { return toolOf(tmuxSpec(), host) }

func toolOf(spec *tools.ToolSpec, host func() (*Host, error)) tools.Tool {
	return tools.Tool{Spec: spec, Bind: func(env tools.Env) tools.RunFunc { return bind(spec.Name, host, env) }}
}

func shellSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:        tools.NameShell,
		BlockTypes:  []string{tools.NameShell},
		Description: "Run shell commands in a persistent bash session in the workspace.",
		Instructions: `The session keeps its working directory and environment between calls. Commands run one after another and stop at the first that fails. Stdin is closed: commands cannot ask questions, so pass flags such as -y. Long output is cut in the middle; the full output is kept in a log.
Commands that only read (ls, cat, grep, rg, find, ...) run at once; others may need the user's approval, and destructive ones (rm -rf /, git reset --hard, git push --force, piping into a shell) are refused.
Start long-running programs as background jobs: "bg CMD" starts one and prints its id; "jobs" lists them; "output ID" shows a job's output; "kill ID" stops it.
Do not use the shell to edit files: use the edit tools, which keep the editor's buffers in step.`,
		Parameters: []tools.Parameter{
			{Name: "command", Type: "string", Required: true, Description: "The commands to run, one per line."},
		},
		Examples: []tools.Example{
			{Title: "Run the tests", Steps: []tools.ExampleStep{
				tools.ExampleUser("run the tests"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameShell, "go test ./...")),
				tools.ExampleSystem("Ran command: `go test ./...`\n```stdout\nok  \texample.com/pkg\t0.012s\n```"),
			}},
			{Title: "A server in the background", Steps: []tools.ExampleStep{
				tools.ExampleUser("start the dev server and check it answers"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameShell, "bg npm run dev")),
				tools.ExampleSystem("Started background job **#1**: `npm run dev`"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameShell, "curl -s localhost:5173 | head -5")),
			}},
		},
	}
}

func ipythonSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameIPython,
		BlockTypes:   []string{tools.NameIPython, "py"},
		Description:  "Run Python code in a persistent interpreter.",
		Instructions: "Variables, imports and functions persist between calls. The value of the last expression is shown, as in a REPL. Use it for calculations and data exploration, not to edit files. The result says which interpreter runs: in IPython, magics such as %timeit work, and !command runs a shell command after the same check as the shell tool's (a refused one prints why and does not run). view_image('path') shows you an image, as the view_image tool does.",
		Parameters: []tools.Parameter{
			{Name: "code", Type: "string", Required: true, Description: "The Python code to run."},
		},
		Available:    tools.OnPath("python3"),
		Requires:     "python3 on PATH",
		LoadPriority: 10,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("what is 2**100?"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameIPython, "2**100")),
				tools.ExampleSystem("Executed code block in IPython 8.12.3.\n```stdout\n1267650600228229401496703205376\n```"),
			}},
		},
	}
}

func tmuxSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:        tools.NameTmux,
		BlockTypes:  []string{tools.NameTmux},
		Description: "Run interactive programs (REPLs, debuggers, dev servers) in terminal sessions you can type into.",
		Instructions: `One command per line:
new-session CMD: start CMD in a new session and show its screen;
send-keys SESSION KEYS: type into a session (key names such as Enter and C-c work);
inspect-pane SESSION: show the screen;
wait SESSION [TIMEOUT] [STABLE]: wait until the screen stops changing;
kill-session SESSION; list-sessions.`,
		Parameters: []tools.Parameter{
			{Name: "commands", Type: "string", Required: true, Description: "The session commands, one per line."},
		},
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("start a python REPL and compute 6*7"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameTmux, "new-session python3")),
				tools.ExampleSystem("Running `python3` in session agentls_1."),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameTmux, "send-keys agentls_1 '6*7' Enter")),
			}},
		},
	}
}
