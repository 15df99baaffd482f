-- gram-lsp for Neovim 0.7, 0.8 and 0.9 (also works on 0.10).
vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
  pattern = "*.gram",
  command = "setfiletype gram",
})
local gram_client
vim.api.nvim_create_autocmd("FileType", {
  pattern = "gram",
  callback = function(args)
    if not gram_client or vim.lsp.client_is_stopped(gram_client) then
      local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(args.buf), ":p:h")
      local git = vim.fn.finddir(".git", dir .. ";")
      gram_client = vim.lsp.start_client({
        name = "gram-lsp",
        cmd = { "gram-lsp" },
        root_dir = git ~= "" and vim.fn.fnamemodify(git, ":p:h:h") or dir,
      })
    end
    if gram_client then
      vim.lsp.buf_attach_client(args.buf, gram_client)
    end
  end,
})
