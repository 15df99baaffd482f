-- gram-lsp for Neovim 0.10 and later.
vim.filetype.add({ extension = { gram = "gram" } })
vim.api.nvim_create_autocmd("FileType", {
  pattern = "gram",
  callback = function(args)
    vim.lsp.start({
      name = "gram-lsp",
      cmd = { "gram-lsp" },
      root_dir = vim.fs.root(args.buf, { ".git" }),
    })
  end,
})
