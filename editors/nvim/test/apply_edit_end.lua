-- Headless Neovim with the editors/nvim plugin set up by init.lua
-- (TestNeovimApplyEditAtEnd): workspace/applyEdit requests that insert at
-- the end of a buffer, past its final newline, as a streamed chat reply
-- does, go through the plugin's handler; each buffer must hold exactly
-- the text the server sent, with no empty line added (Neovim 0.11 adds
-- one to an insert there that ends in "\n"). Prints OK, or FAIL and exits
-- non-zero.
local root = os.getenv('AGENTLS_ROOT')

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local function at(line, character)
  return { line = line, character = character }
end

local function insert(pos, text)
  return { range = { start = pos, ['end'] = pos }, newText = text }
end

local cases = {
  { name = 'a reply heading ending in newlines', edits = { insert(at(1, 0), '\n## Agent\n\n') },
    want = { 'package p', '', '## Agent', '' } },
  { name = 'a line with no end yet', edits = { insert(at(1, 0), 'I will') },
    want = { 'package p', 'I will' } },
  { name = 'one newline', edits = { insert(at(1, 0), '\n') }, want = { 'package p', '' } },
  { name = 'two inserts keep their order', edits = { insert(at(1, 0), 'a\n'), insert(at(1, 0), 'b\n') },
    want = { 'package p', 'a', 'b' } },
  { name = 'an insert past the end and one inside',
    edits = { insert(at(0, 0), '// top\n'), insert(at(1, 0), 'end\n') },
    want = { '// top', 'package p', 'end' } },
  { name = 'a replacement up to the end is left as sent',
    edits = { { range = { start = at(0, 8), ['end'] = at(1, 0) }, newText = 'q\n' } },
    want = { 'package q' } },
}

local function main()
  vim.cmd('edit ' .. root .. '/a.go')
  local buf = vim.api.nvim_get_current_buf()
  local client
  if not vim.wait(15000, function()
    for _, c in ipairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
      if c.name == 'agentls' and c.initialized and vim.lsp.buf_is_attached(buf, c.id) then
        client = c
        return true
      end
    end
  end, 20) then
    fail('timed out waiting for the server')
  end
  local handler = require('agentls').handlers()['workspace/applyEdit']
  local uri = vim.uri_from_bufnr(buf)
  for _, tt in ipairs(cases) do
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'package p' })
    local params = { edit = { documentChanges = { { textDocument = { uri = uri }, edits = tt.edits } } } }
    local res = handler(nil, params, { client_id = client.id, method = 'workspace/applyEdit' })
    local got = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    if not (res and res.applied) then
      fail(tt.name .. ': not applied: ' .. vim.inspect(res))
    elseif not vim.deep_equal(got, tt.want) then
      fail(tt.name .. ': the buffer holds ' .. vim.inspect(got) .. ', want ' .. vim.inspect(tt.want))
    end
  end
  io.stdout:write('OK\n')
  vim.cmd('qa!')
end

local ok, err = pcall(main)
if not ok then
  fail(tostring(err))
end
