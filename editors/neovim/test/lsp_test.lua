-- Headless test of the Neovim set-up docs/editors.md gives. Run by test.sh as
--   nvim --headless --clean -c "luafile editors/neovim/test/lsp_test.lua"
-- with gram-lsp on the PATH. It checks that both snippets are in docs/editors.md word
-- for word, loads the one for this Neovim, opens a .gram file and checks that the
-- server starts, a diagnostic appears for a broken line and clears after the
-- fix, and hover and document symbols answer. Any failure exits with status 1.

local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local neovim = vim.fn.fnamemodify(here, ":h")
local repo = vim.fn.fnamemodify(neovim, ":h:h")
local timeout = tonumber(os.getenv("GRAM_NVIM_TIMEOUT") or "") or 15000

local function fail(msg)
  io.stderr:write("FAIL: " .. msg .. "\n")
  vim.cmd("cquit 1")
end

local function ok(msg)
  io.stdout:write("ok: " .. msg .. "\n")
end

local function read(path)
  local f = assert(io.open(path, "r"), "cannot read " .. path)
  local s = f:read("*a")
  f:close()
  return s
end

local function wait(what, cond)
  if not vim.wait(timeout, cond, 50) then
    error(what .. " (waited " .. timeout .. " ms)", 0)
  end
end

local function run()
  -- docs/editors.md shows exactly the files this test loads.
  local readme = read(repo .. "/docs/editors.md")
  local blocks = {}
  for block in readme:gmatch("```lua\n(.-)```") do
    blocks[block] = true
  end
  for _, name in ipairs({ "gram.lua", "gram-0.10.lua" }) do
    local text = read(neovim .. "/" .. name)
    if not blocks[text] then
      error("docs/editors.md has no ```lua block equal to editors/neovim/" .. name, 0)
    end
    -- Every snippet at least parses here, including the one for newer versions.
    local chunk, err = loadstring(text, name)
    if not chunk then
      error("editors/neovim/" .. name .. " does not parse: " .. err, 0)
    end
  end
  ok("docs/editors.md shows editors/neovim/gram.lua and gram-0.10.lua")

  local snippet = vim.fn.has("nvim-0.10") == 1 and "gram-0.10.lua" or "gram.lua"
  dofile(neovim .. "/" .. snippet)
  ok("loaded " .. snippet .. " on Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))

  -- A project with a .git folder; the file is in a subfolder of it.
  local project = vim.fn.resolve(vim.fn.tempname())
  vim.fn.mkdir(project .. "/.git", "p")
  local dir = project .. "/agents"
  vim.fn.mkdir(dir, "p")
  local file = dir .. "/orders.gram"
  local lines = {
    '[lookup:Tool {description: "Finds an order by its id"} |',
    "  (orderId::String)==>(::String)",
    "]",
    "",
    '[helper:Agent {model: "OpenAI/gpt-4o-mini", instruction: "Help."} |',
    "  lookup",
    "]",
  }
  vim.fn.writefile(lines, file)
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].filetype ~= "gram" then
    error("filetype of a .gram file is '" .. vim.bo[buf].filetype .. "', not gram", 0)
  end
  ok("a .gram file gets filetype gram")

  local client
  wait("gram-lsp did not start and initialize (is it on the PATH?)", function()
    for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
      if c.name == "gram-lsp" and c.initialized then
        client = c
        return true
      end
    end
    return false
  end)
  ok("gram-lsp started and attached")
  if client.config.root_dir ~= project then
    error("root_dir is " .. tostring(client.config.root_dir) .. ", want the folder holding .git: " .. project, 0)
  end
  ok("root_dir is the folder holding .git")

  -- A clean file has no errors.
  wait("diagnostics of the clean file", function()
    return #vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR }) == 0
  end)

  -- Break a line: an unknown type.
  vim.api.nvim_buf_set_lines(buf, 1, 2, false, { "  (orderId::Integr)==>(::String)" })
  local found
  wait("no diagnostic for the broken line 2", function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.lnum == 1 and d.severity == vim.diagnostic.severity.ERROR then
        found = d
        return true
      end
    end
    return false
  end)
  local code = found.code or (found.user_data and found.user_data.lsp and found.user_data.lsp.code)
  if code ~= "unknown-type" then
    error("the diagnostic on line 2 has code " .. tostring(code) .. ", want unknown-type: " .. found.message, 0)
  end
  ok("a diagnostic appears on the broken line: [" .. code .. "] " .. found.message)

  -- Fix it: the diagnostic clears.
  vim.api.nvim_buf_set_lines(buf, 1, 2, false, { "  (orderId::Integer)==>(::String)" })
  wait("the diagnostic did not clear after the fix", function()
    return #vim.diagnostic.get(buf) == 0
  end)
  ok("the diagnostic clears after the fix")

  -- Hover on the tool reference in the agent.
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 5, character = 4 },
  }
  local answers = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, timeout)
  local hover
  for _, a in pairs(answers or {}) do
    if a.result then
      hover = a.result
    end
  end
  if not hover then
    error("hover on the tool reference gave no answer", 0)
  end
  local contents = hover.contents
  local text = type(contents) == "string" and contents or contents.value or vim.inspect(contents)
  if not text:find("Finds an order by its id", 1, true) then
    error("hover does not show the tool's description: " .. text, 0)
  end
  ok("hover shows the tool's description")

  -- Document symbols: the tool and the agent.
  answers = vim.lsp.buf_request_sync(buf, "textDocument/documentSymbol", { textDocument = params.textDocument }, timeout)
  local names = {}
  for _, a in pairs(answers or {}) do
    for _, s in ipairs(a.result or {}) do
      names[s.name] = true
    end
  end
  for _, want in ipairs({ "lookup", "helper" }) do
    if not names[want] then
      error("document symbols lack " .. want .. ": " .. vim.inspect(vim.tbl_keys(names)), 0)
    end
  end
  ok("document symbols list the tool and the agent")

  vim.lsp.stop_client(client.id)
  wait("gram-lsp did not stop", function()
    return vim.lsp.client_is_stopped(client.id)
  end)
  ok("gram-lsp stopped")
end

local success, err = pcall(run)
if not success then
  fail(tostring(err))
else
  vim.cmd("qall!")
end
