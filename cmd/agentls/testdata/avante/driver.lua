-- Drives avante.nvim's sidebar as a person would, for TestAvanteReal
-- (avante_real_test.go), which sources this file after the README's
-- avante set-up: open greet.txt, open the sidebar with :AvanteAsk (the
-- agentls ACP provider starts `agentls acp`), type a prompt into the
-- sidebar's input and press <CR>, wait for the reply and the edit; then
-- ask for a command the same way; in the question popup press n (reject);
-- ask again and press y (allow once). Every wait polls a condition until
-- a deadline; whatever happens, the result (or the error) is written as
-- JSON to $AGENTLS_TEST_RESULT and Neovim quits.

local api = vim.api
local result_path = assert(vim.env.AGENTLS_TEST_RESULT, "AGENTLS_TEST_RESULT is not set")
local timeout_ms = tonumber(vim.env.AGENTLS_TEST_TIMEOUT_MS) or 60000

local steps = {}

-- What avante's ACP client receives (the agent's requests and
-- notifications) and answers, recorded by wrapping two of its methods:
-- avante keeps no log of its own unless debug is on.
local wire = {}
local ACPClient = require("avante.libs.acp_client")
local handle_notification, send_result = ACPClient._handle_notification, ACPClient._send_result
ACPClient._handle_notification = function(self, id, method, params)
  table.insert(wire, { received = method, params = params })
  return handle_notification(self, id, method, params)
end
ACPClient._send_result = function(self, id, result)
  table.insert(wire, { sent = result })
  return send_result(self, id, result)
end

-- await polls cond until it holds, and fails with what it waited for at
-- the deadline.
local function await(what, cond)
  if not vim.wait(timeout_ms, cond, 20) then
    error("timed out waiting for " .. what, 0)
  end
  table.insert(steps, what)
end

local function sidebar()
  return require("avante").get()
end

local function buf_text(container)
  local sb = sidebar()
  local c = sb and sb.containers and sb.containers[container]
  if not c or not c.bufnr or not api.nvim_buf_is_valid(c.bufnr) then
    return ""
  end
  return table.concat(api.nvim_buf_get_lines(c.bufnr, 0, -1, false), "\n")
end

local function has(text)
  return function()
    return buf_text("result"):find(text, 1, true) ~= nil
  end
end

local function idle()
  local sb = sidebar()
  return sb ~= nil and not sb.is_generating
end

-- keys types keys into the current window, mappings included, and runs
-- them before returning.
local function keys(k)
  api.nvim_feedkeys(api.nvim_replace_termcodes(k, true, false, true), "mx", false)
end

-- ask types a prompt into the sidebar's input and sends it with <CR>.
local function ask(prompt)
  api.nvim_set_current_win(sidebar().containers.input.winid)
  keys("cc" .. prompt .. "<Esc>")
  keys("<CR>")
end

-- confirmation is avante's question popup, while it is open.
local function confirmation()
  local popup = require("avante.llm_tools.helpers").confirm_popup
  local win = popup and popup._popup and popup._popup.winid
  return win and api.nvim_win_is_valid(win) and win or nil
end

-- answer presses key (y allow once, a allow always, n reject) in the
-- question popup.
local function answer(key)
  api.nvim_set_current_win(confirmation())
  keys(key)
end

local function run()
  vim.cmd("edit greet.txt")
  -- The sidebar first: opening it starts agentls and its session, and a
  -- question asked before that is done (:AvanteAsk QUESTION on a closed
  -- sidebar) starts a second agentls, which may get the prompt for the
  -- first one's session ("no session").
  vim.cmd("AvanteAsk")
  await("the agentls session", function()
    local sb = sidebar()
    return sb ~= nil and sb.acp_client ~= nil and sb.acp_client:is_ready() and sb.chat_history.acp_session_id ~= nil
  end)
  ask("patch greet.txt")
  await("the reply after the patch", function()
    return idle() and has("Patched.")()
  end)

  ask("run it")
  await("the first question", function()
    return confirmation() ~= nil
  end)
  answer("n")
  await("the reply after the rejection", function()
    return idle() and has("Not run.")()
  end)
  ask("run it")
  await("the second question", function()
    return confirmation() ~= nil
  end)
  answer("y")
  await("the reply after the command ran", function()
    return idle() and has("Ran.")()
  end)
end

local function finish(err)
  local greet = vim.fn.bufnr("greet.txt")
  local sb = sidebar()
  local out = {
    error = err,
    steps = steps,
    result = buf_text("result"),
    input = buf_text("input"),
    generating = sb and sb.is_generating or false,
    greet = greet > 0 and api.nvim_buf_get_lines(greet, 0, -1, false) or vim.NIL,
    greet_modified = greet > 0 and vim.bo[greet].modified or vim.NIL,
    messages = vim.fn.execute("messages"),
    wire = wire,
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
