# Coherence verdicts of a fleet, in one jq process. Inputs: for each brain its
# project_brain.json, then its system_blocks.json when it has one.
def slug:
  ascii_downcase | gsub("[^a-z0-9]+"; "_") | ltrimstr("_") | rtrimstr("_")
  | if . == "" then "repo" else . end;
def basename: sub("[/\\\\]+$"; "") | split("/") | last;
def verdict($expected):
  .skeleton.skeleton_id as $sk
  | if ($sk == "sk_" + $expected or ($sk | startswith("sk_" + $expected + "_")))
       and all(.blocks[]; .block_id | startswith("sb_" + $expected + "_"))
    then "ok" else "mismatch" end;
reduce inputs as $doc ({expected: null, ok: 0, mismatch: 0};
  if $doc | has("project_root") then .expected = ($doc.project_root | basename | slug)
  else .expected as $e | .[$doc | verdict($e)] += 1 end)
| {ok, mismatch}
