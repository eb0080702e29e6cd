-- Headless Neovim with the editors/nvim plugin set up with its defaults
-- (TestNeovimUnseenBuffer): a.zig, a file type outside the plugin's old
-- list, is opened and the user adds a line above `const A` without
-- saving; then a reply changing `const B = 2` is applied from reply.md
-- with :AgentApply. Computed against the disk and applied by position,
-- the edit would change `const A`: it must land on `const B`, or not at
-- all. With AGENTLS_WANT=refused (the plugin set up for Markdown only)
-- a.zig is not attached, and the plugin refuses the edit: nothing
-- changes, the server keeps it as pending review. Prints OK, or FAIL and exits non-zero.
local root = os.getenv('AGENTLS_ROOT')

local lib = dofile(debug.getinfo(1, 'S').source:sub(2):match('.*/') .. 'testlib.lua')
local fail, text, wait = lib.fail, lib.text, lib.wait

-- The server's messages (window/showMessage), recorded before the
-- handler shows them.
local messages = {}
local show = vim.lsp.handlers['window/showMessage']
vim.lsp.handlers['window/showMessage'] = function(err, params, ctx, config)
  table.insert(messages, params and params.message or '')
  return show(err, params, ctx, config)
end

local function open(name)
  vim.cmd('edit ' .. root .. '/' .. name)
  return vim.api.nvim_get_current_buf()
end

local function main()
  local reply = open('reply.md')
  local client
  wait('the server to start for reply.md', function()
    for _, c in ipairs(vim.lsp.get_active_clients()) do
      if c.name == 'agentls' and c.initialized and vim.lsp.buf_is_attached(reply, c.id) then
        client = c
      end
    end
    return client ~= nil
  end)

  local a = open('a.zig')
  -- The user's line above const A, not saved.
  vim.api.nvim_buf_set_lines(a, 2, 2, false, { 'const Z = 0' })
  local modified = 'package p\n\nconst Z = 0\nconst A = 1\nconst B = 2'
  if text(a) ~= modified then fail('a.zig before the reply: ' .. text(a)) end

  vim.api.nvim_set_current_buf(reply)
  vim.api.nvim_buf_set_lines(reply, 0, -1, false, vim.split(os.getenv('AGENTLS_REPLY'), '\n', { plain = true }))
  vim.cmd('AgentApply')
  wait('the server to answer', function()
    for _, m in ipairs(messages) do
      if m:find('applied', 1, true) or m:find('refused', 1, true) or m:find('nothing', 1, true) then
        return true
      end
    end
    return false
  end)
  local want = 'package p\n\nconst Z = 0\nconst A = 1\nconst B = 3'
  if os.getenv('AGENTLS_WANT') == 'refused' then
    -- filetypes = { 'markdown' }: a.zig is not attached, and the plugin
    -- refuses the edit computed from the disk.
    if vim.lsp.buf_is_attached(a, client.id) then fail('a.zig is attached') end
    want = modified
    wait('the refusal and pending review', function()
      for _, m in ipairs(messages) do
        if m:find('a.zig has unsaved changes', 1, true) and m:find('pending review', 1, true) then
          return true
        end
      end
      return false
    end)
  elseif not vim.lsp.buf_is_attached(a, client.id) then
    fail('a.zig is not attached')
  end
  if text(a) ~= modified and text(a) ~= want then
    fail('the edit landed on the wrong line: ' .. text(a) .. '\nmessages: ' .. table.concat(messages, ' | '))
  end
  if text(a) ~= want then
    fail('the edit did not land: ' .. text(a) .. '\nmessages: ' .. table.concat(messages, ' | '))
  end
  if not vim.bo[a].modified then fail('a.zig is not modified') end
  local disk = table.concat(vim.fn.readfile(root .. '/a.zig'), '\n')
  if disk ~= 'package p\n\nconst A = 1\nconst B = 2' then fail('a.zig on disk changed: ' .. disk) end
  print('OK')
  vim.cmd('qall!')
end

local ok, err = pcall(main)
if not ok then fail(tostring(err)) end
