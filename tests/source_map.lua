-- Prints each source file's lines and its first sentence: a map of the code for a newcomer.
--   lua5.4 tests/source_map.lua [ROOT]
-- Every file opens with a comment that says what it holds and none is over 900 lines, no header
-- inside src/ over 250, and struct sb_world, built from parts, under 100: one that is not so is
-- named, and the exit status is 1.
local root = arg[1] or "."
local dirs = { "include/springbox", "src/core", "src/lua", "src/app", "web" }
local silent, long = 0, {}
for _, dir in ipairs(dirs) do
  local list = io.popen('ls "' .. root .. "/" .. dir .. '" 2>/dev/null')
  for name in list:lines() do
    if name:match("%.[ch]$") or name:match("%.cpp$") or (name:match("%.js$") and dir == "web") then
      local path = dir .. "/" .. name
      local lines, head = 0, {}
      local reading = true
      for line in io.lines(root .. "/" .. path) do
        lines = lines + 1
        if reading then
          local text = line:match("^%s*//+%s?(.*)$") or line:match("^%-%-+%s?(.*)$")
          if text and text ~= "" then
            head[#head + 1] = text
          elseif #head > 0 or not line:match("^%s*$") and not line:match("^#!") then
            reading = false
          end
        end
      end
      local text = table.concat(head, " ")
      local sentence = text:match("^(.-%.)%s") or text
      if #sentence > 110 then sentence = sentence:sub(1, 107) .. "..." end
      if sentence == "" then
        silent = silent + 1
        sentence = "(NO OPENING SENTENCE)"
      end
      print(string.format("%-40s %5d  %s", path, lines, sentence))
      local most = (name:match("%.h$") and dir:match("^src/")) and 250 or 900
      if lines > most then long[#long + 1] = string.format("%s (%d lines, most %d)", path, lines, most) end
      if path == "src/core/world_internal.h" then
        local text = io.open(root .. "/" .. path):read("a")
        local body = text:match("\nstruct sb_world {\n(.-\n)};")
        local members = body and select(2, body:gsub("\n", "")) or math.huge
        if members >= 100 then long[#long + 1] = string.format("struct sb_world (%s lines, most 99)", members) end
      end
    end
  end
  list:close()
end
if silent > 0 then
  io.stderr:write(silent .. " file(s) do not open with a sentence saying what they hold\n")
end
if #long > 0 then
  io.stderr:write("too long: " .. table.concat(long, ", ") .. "\n")
end
if silent > 0 or #long > 0 then os.exit(1) end
