#!/usr/bin/env python3
"""A fake aider or gptme for agenteval's tests (the name it is run by says
which): it records its command line and the variables agenteval sets, asks
the model the way the real one does (gptme: a system message whose content
is a list of parts), writes the file the reply holds, and prints or logs
what the real one would."""
import json, os, sys, urllib.request

name = os.path.basename(sys.argv[0])
args = sys.argv[1:]
with open(os.environ["FAKEPEER_RECORD"], "a") as f:
    f.write(json.dumps({"name": name, "argv": args, "cwd": os.getcwd(),
                        "env": {k: os.environ.get(k, "") for k in ("OPENAI_BASE_URL", "HOME", "GPTME_LOGS_HOME")}}) + "\n")

def opt(flag):
    return args[args.index(flag) + 1]

def ask(base, messages):
    body = json.dumps({"model": "m", "stream": True, "stream_options": {"include_usage": True}, "messages": messages}).encode()
    req = urllib.request.Request(base + "/chat/completions", body, {"Content-Type": "application/json", "Authorization": "Bearer k"})
    text = ""
    with urllib.request.urlopen(req) as resp:
        for line in resp:
            line = line.decode().strip()
            if line.startswith("data: {"):
                for c in json.loads(line[6:]).get("choices", []):
                    text += c.get("delta", {}).get("content") or ""
    return text

def write_block(text):
    # "NAME\n```\nBODY```" (aider's whole format) or "```save NAME\nBODY```" (gptme's).
    head, body = text.split("\n", 1)
    path = head.split()[-1] if head.startswith("```") else head
    if not head.startswith("```"):
        body = body.split("\n", 1)[1]
    open(path, "w").write(body.rsplit("```", 1)[0])
    return path

if name == "aider":
    prompt = opt("--message")
    reply = ask(opt("--openai-api-base"), [{"role": "system", "content": "whole"}, {"role": "user", "content": prompt}])
    with open(opt("--llm-history-file"), "w") as f:
        f.write("TO LLM 2026-12-02T04:23:37\nUSER " + prompt + "\n\nLLM RESPONSE 2026-12-02T04:24:44\n")
        f.write("".join("ASSISTANT " + l + "\n" for l in reply.splitlines()))
    print("Aider v0.86.2")
    print("Applied edit to " + write_block(reply))
else:
    prompt = args[-1]
    base = os.environ["OPENAI_BASE_URL"]
    system = {"role": "system", "content": [{"type": "text", "text": "You are gptme."}]}
    msgs = [system, {"role": "user", "content": prompt}]
    reply = ask(base, msgs)
    path = write_block(reply)
    log = [{"role": "system", "content": "You are gptme."}, {"role": "user", "content": prompt},
           {"role": "assistant", "content": reply}, {"role": "system", "content": "Saved to " + path}]
    done = ask(base, msgs + [{"role": "assistant", "content": reply}, {"role": "system", "content": "Saved to " + path}])
    log.append({"role": "assistant", "content": done})
    d = os.path.join(os.environ["GPTME_LOGS_HOME"], "agenteval")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "conversation.jsonl"), "w") as f:
        for m in log:
            f.write(json.dumps(m) + "\n")
