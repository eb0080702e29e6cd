-- Drives codecompanion.nvim's chat as a person would, for
-- TestCodecompanionReal (codecompanion_real_test.go), which sources this
-- file after the README's codecompanion set-up: open greet.txt, open a
-- chat (the agentls ACP adapter starts `agentls acp`), type a prompt and
-- press <CR>, wait for the reply and the edit; then ask for a command,
-- press the chat's Reject key at the approval prompt, ask again and press
-- its Accept key; then type agentls's /undo (\undo in codecompanion).
-- Every wait polls a condition until a deadline; whatever happens, the
-- result (or the error) is written as JSON to $AGENTLS_TEST_RESULT and
-- Neovim quits.

local api = vim.api
local result_path = assert(vim.env.AGENTLS_TEST_RESULT, "AGENTLS_TEST_RESULT is not set")
local timeout_ms = tonumber(vim.env.AGENTLS_TEST_TIMEOUT_MS) or 60000

-- The events codecompanion fires, counted: a reply done, an approval
-- asked, a file edited.
local seen = { ChatDone = 0, ToolApprovalRequested = 0, FileEdited = 0 }
for event in pairs(seen) do
  api.nvim_create_autocmd("User", {
    pattern = "CodeCompanion" .. event,
    callback = function()
      seen[event] = seen[event] + 1
    end,
  })
end

local steps = {}

-- await polls cond until it holds, and fails with what it waited for at
-- the deadline.
local function await(what, cond)
  if not vim.wait(timeout_ms, cond, 20) then
    error("timed out waiting for " .. what, 0)
  end
  table.insert(steps, what)
end

local function chat()
  return require("codecompanion").last_chat()
end

local function chat_text()
  local c = chat()
  if not c or not api.nvim_buf_is_valid(c.bufnr) then
    return ""
  end
  return table.concat(api.nvim_buf_get_lines(c.bufnr, 0, -1, false), "\n")
end

local function has(text)
  return function()
    return chat_text():find(text, 1, true) ~= nil
  end
end

-- keys types keys into the current window, mappings included, and runs
-- them before returning.
local function keys(k)
  api.nvim_feedkeys(api.nvim_replace_termcodes(k, true, false, true), "mx", false)
end

-- ask types a prompt at the end of the chat buffer and sends it with <CR>.
local function ask(prompt)
  local c = chat()
  api.nvim_set_current_win(c.ui.winnr)
  keys("<Esc>GA" .. prompt .. "<Esc>")
  keys("<CR>")
end

-- rpc_log is codecompanion's log of the connection's JSON-RPC messages
-- so far (it is in Neovim's temporary folder, gone when Neovim exits).
local function rpc_log()
  local c = chat()
  local log = c and c.acp_connection and c.acp_connection._rpc_log
  local f = log and io.open(log.path, "r")
  if not f then
    return ""
  end
  local text = f:read("*a")
  f:close()
  return text
end

local function run()
  vim.cmd("edit greet.txt")
  vim.cmd("CodeCompanionChat")
  await("the chat buffer", function()
    return chat() ~= nil
  end)
  await("the agentls session", function()
    local conn = chat().acp_connection
    return conn ~= nil and conn.session_id ~= nil
  end)

  -- An edit: streamed text, then the patch written through
  -- fs/write_text_file: into the open greet.txt buffer, and notes.txt on
  -- disk.
  ask("patch greet.txt")
  await("the reply after the patch", function()
    return seen.ChatDone >= 1 and has("Patched.")()
  end)

  -- A command: agentls asks (session/request_permission); the chat's
  -- approval prompt is answered with its keys.
  local keymaps = require("codecompanion.interactions.chat.tools.labels").keymaps()
  ask("run it")
  await("the first approval prompt", function()
    return seen.ToolApprovalRequested >= 1
  end)
  api.nvim_set_current_win(chat().ui.winnr)
  keys(keymaps.reject)
  await("the reply after the rejection", function()
    return seen.ChatDone >= 2
  end)
  ask("run it")
  await("the second approval prompt", function()
    return seen.ToolApprovalRequested >= 2
  end)
  api.nvim_set_current_win(chat().ui.winnr)
  keys(keymaps.accept)
  await("the reply after the command ran", function()
    return seen.ChatDone >= 3 and has("Ran.")()
  end)
  -- agentls's slash commands are codecompanion's ACP commands, typed
  -- with a backslash.
  ask("\\undo")
  await("the reply to undo", function()
    return seen.ChatDone >= 4 and (has("Undid turn")() or has("Nothing was undone")())
  end)
  -- codecompanion writes its log of the JSON-RPC traffic behind the
  -- chat's back: wait for the last prompt's answer in it.
  await("the RPC log", function()
    local _, answers = rpc_log():gsub('"stopReason"', "")
    return answers >= 4
  end)
end

local function finish(err)
  local greet = vim.fn.bufnr("greet.txt")
  local out = {
    error = err,
    steps = steps,
    seen = seen,
    chat = chat_text(),
    greet = greet > 0 and api.nvim_buf_get_lines(greet, 0, -1, false) or vim.NIL,
    greet_modified = greet > 0 and vim.bo[greet].modified or vim.NIL,
    rpc_log = rpc_log(),
    messages = vim.fn.execute("messages"),
  }
  local f = assert(io.open(result_path .. ".part", "w"))
  f:write(vim.json.encode(out))
  f:close()
  assert(os.rename(result_path .. ".part", result_path))
  vim.cmd(err and "cquit! 1" or "qall!")
end

vim.schedule(function()
  local ok, err = xpcall(run, debug.traceback)
  finish(not ok and tostring(err) or nil)
end)
