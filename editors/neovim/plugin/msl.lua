-- msl for Neovim: `.metal` files get the `metal` filetype, and msl-lsp starts for them.
-- Put this folder on 'runtimepath' (a plugin manager does; or `set rtp+=PATH/TO/editors/neovim`).
-- Neovim 0.11 and newer use lsp/msl.lua through vim.lsp.enable; 0.7 to 0.10 start the
-- same configuration themselves, one client per project root.
if vim.g.loaded_msl then
  return
end
vim.g.loaded_msl = true

vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
  pattern = '*.metal',
  callback = function(args)
    vim.bo[args.buf].filetype = 'metal'
  end,
})

-- lsp/msl.lua next to this folder (not another on 'runtimepath')
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
local config = dofile(here .. '/lsp/msl.lua')

if vim.lsp.config and vim.lsp.enable then
  vim.lsp.config('msl', config)
  vim.lsp.enable('msl')
  return
end

-- the nearest folder above `file` holding one of the root markers, else the file's folder
local function root_of(file)
  local dir = vim.fn.fnamemodify(file, ':p:h')
  for _, marker in ipairs(config.root_markers) do
    local found = vim.fn.finddir(marker, dir .. ';')
    if found == '' then
      found = vim.fn.findfile(marker, dir .. ';')
    end
    if found ~= '' then
      -- the folder that holds the marker (a folder's full path ends in a slash)
      local path = vim.fn.fnamemodify(found, ':p'):gsub('/$', '')
      return vim.fn.fnamemodify(path, ':h')
    end
  end
  return dir
end

local clients = {}
vim.api.nvim_create_autocmd('FileType', {
  pattern = config.filetypes,
  callback = function(args)
    local root = root_of(vim.api.nvim_buf_get_name(args.buf))
    local id = clients[root]
    if not id then
      id = vim.lsp.start_client({
        name = 'msl-lsp',
        cmd = config.cmd,
        root_dir = root,
        init_options = config.init_options,
      })
      clients[root] = id
    end
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})
