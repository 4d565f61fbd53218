// Load `ioanalyze dump` JSONL into DuckDB with every column typed exactly.
//
//   npm install @duckdb/node-api
//   ioanalyze dump --schema > schema.json
//   ioanalyze dump trace.zst > events.jsonl
//   node load_duckdb.mjs schema.json events.jsonl ["SQL on the table events"]
//
// read_json infers the columns from the lines it samples: a column null in
// all of them becomes JSON, a large integer HUGEINT. Given the schema's
// "duckdb" map as columns=, every column has its type whatever the sample.
// Prints the table's columns and types, then the SQL's rows, as JSON.
import { readFileSync } from "node:fs";
import { DuckDBInstance } from "@duckdb/node-api";

const [schemaPath, jsonlPath, sql] = process.argv.slice(2);
if (!schemaPath || !jsonlPath) {
    console.error("usage: node load_duckdb.mjs SCHEMA.json EVENTS.jsonl [SQL]");
    process.exit(2);
}
const quote = (s) => "'" + String(s).replaceAll("'", "''") + "'";
const types = JSON.parse(readFileSync(schemaPath, "utf8")).duckdb;
const columns = Object.entries(types).map(([name, type]) => `${quote(name)}: ${quote(type)}`);

const db = await DuckDBInstance.create(":memory:");
const con = await db.connect();
await con.run(`create table events as select * from read_json(${quote(jsonlPath)},
    format = 'newline_delimited', columns = {${columns.join(", ")}})`);
const described = await con.runAndReadAll("describe events");
const out = {
    columns: Object.fromEntries(described.getRowObjectsJson().map((r) => [r.column_name, r.column_type])),
};
if (sql)
    out.rows = (await con.runAndReadAll(sql)).getRowObjectsJson();
console.log(JSON.stringify(out));
