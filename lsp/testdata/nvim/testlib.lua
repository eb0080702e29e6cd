-- What the headless Neovim scripts share, loaded by each with
--   local lib = dofile(debug.getinfo(1, 'S').source:sub(2):match('.*/') .. 'testlib.lua')
-- (the scripts run by :luafile with an absolute path, on Neovim 0.7 and
-- 0.11 alike): failing with the reason, a buffer's text, and waiting for
-- a condition.
local M = {}

-- fail writes the reason and exits non-zero, which fails the Go test.
function M.fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

-- text is a buffer's lines joined.
function M.text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
end

-- has says whether a buffer's text holds s.
function M.has(buf, s)
  return M.text(buf):find(s, 1, true) ~= nil
end

-- wait waits up to 15 s for cond, failing with what it waited for.
function M.wait(what, cond)
  if not vim.wait(15000, cond, 20) then
    M.fail('timed out waiting for ' .. what)
  end
end

return M
