-- msl-lsp for Metal files, in the form nvim-lspconfig and Neovim 0.11's vim.lsp.config
-- read: with this folder on 'runtimepath', `vim.lsp.enable('msl')` starts it.
return {
  cmd = { 'msl-lsp' },
  filetypes = { 'metal' },
  root_markers = { 'msl.toml', '.git' },
  -- the Metal version and platform when no msl.toml says (see docs/configuration.md)
  init_options = { std = 'metal3.2' },
}
