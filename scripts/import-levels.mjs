#!/usr/bin/env node
// How tall src/ stands: its modules' import graph in levels, and the arrows that point up.
//
//   node scripts/import-levels.mjs [--types] [--list] [dir]
//
// Every relative import of a module counts (static, `export … from`, and `import()`); `import type` only with
// --types. A depth-first walk from the modules nothing imports (in path order) finds the arrows that close a cycle:
// those point up. Without them the graph has no cycle, and a module's level is 1 for one that imports nothing, else
// one more than the highest level it imports. --list prints each level's modules and the upward arrows.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const args = process.argv.slice(2);
const withTypes = args.includes('--types');
const list = args.includes('--list');
const root = resolve(args.find((a) => !a.startsWith('--')) ?? 'src');

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
const modules = files(root).sort();
const known = new Set(modules);

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/g;
const DYNAMIC = /import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const targets = new Set();
  for (const [, , type, spec] of text.matchAll(IMPORT)) if (withTypes || !type) targets.add(spec);
  for (const [, spec] of text.matchAll(DYNAMIC)) targets.add(spec);
  return [...targets]
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
    .filter((target) => known.has(target) && target !== file)
    .sort();
}

const edges = new Map(modules.map((m) => [m, importsOf(m)]));
const imported = new Set([...edges.values()].flat());
const starts = [...modules.filter((m) => !imported.has(m)), ...modules];

// Depth-first from every start: an arrow to a module still on the walk's path closes a cycle.
const state = new Map();
const upward = [];
for (const start of starts) {
  if (state.has(start)) continue;
  const stack = [[start, 0]];
  state.set(start, 'open');
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const [module, next] = top;
    const targets = edges.get(module);
    if (next >= targets.length) {
      state.set(module, 'done');
      stack.pop();
      continue;
    }
    top[1]++;
    const target = targets[next];
    if (state.get(target) === 'open') upward.push([module, target]);
    else if (!state.has(target)) {
      state.set(target, 'open');
      stack.push([target, 0]);
    }
  }
}

const up = new Set(upward.map(([a, b]) => `${a} ${b}`));
const level = new Map();
const levelOf = (module) => {
  if (level.has(module)) return level.get(module);
  const below = edges.get(module).filter((t) => !up.has(`${module} ${t}`));
  const value = 1 + Math.max(0, ...below.map(levelOf));
  level.set(module, value);
  return value;
};
for (const module of modules) levelOf(module);

const name = (m) => relative(process.cwd(), m);
const height = Math.max(...level.values());
console.log(
  `${modules.length} modules, ${height} levels, ${upward.length} upward arrows${withTypes ? ' (type imports included)' : ''}`,
);
if (list) {
  for (let l = height; l >= 1; l--) {
    console.log(
      `level ${l}: ${modules
        .filter((m) => level.get(m) === l)
        .map(name)
        .join(', ')}`,
    );
  }
  for (const [from, to] of upward) console.log(`up: ${name(from)} -> ${name(to)}`);
}
