// node dump.js IN.scip OUT.json : the SCIP index as JSON (documents, occurrences, symbols)
const fs = require('fs');
const { scip } = require(require('path').join(process.env.SCIP_WORK || __dirname, 'node_modules/@sourcegraph/scip-typescript/dist/src/scip.js'));
const idx = scip.Index.deserializeBinary(fs.readFileSync(process.argv[2]));
const out = { metadata: { tool: idx.metadata.tool_info.name + ' ' + idx.metadata.tool_info.version }, documents: [] };
for (const d of idx.documents) {
  out.documents.push({
    path: d.relative_path,
    occurrences: d.occurrences.map(o => ({ range: o.range, symbol: o.symbol, roles: o.symbol_roles })),
    symbols: d.symbols.map(s => s.symbol),
  });
}
fs.writeFileSync(process.argv[3], JSON.stringify(out));
console.log(out.metadata.tool, out.documents.length, 'documents');
