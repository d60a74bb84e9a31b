// The TextMate grammar, run by the same engine VS Code uses (vscode-textmate + vscode-oniguruma).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';

const ROOT = path.resolve(__dirname, '..', '..');
const GRAMMAR = path.join(ROOT, 'syntaxes', 'shapescript.tmLanguage.json');

interface Token {
  text: string;
  scopes: string[];
}

let grammar: textmate.IGrammar;

async function loadGrammar(): Promise<textmate.IGrammar> {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName: string) =>
      scopeName === 'source.shapescript'
        ? textmate.parseRawGrammar(fs.readFileSync(GRAMMAR, 'utf8'), GRAMMAR)
        : null,
  });
  const g = await registry.loadGrammar('source.shapescript');
  assert.ok(g, 'grammar loads');
  return g;
}

/** Tokens of each line, the way VS Code colours them (state carried from line to line). */
function tokenize(text: string): Token[][] {
  let state = textmate.INITIAL;
  return text.split('\n').map((line) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
  });
}

/** The scopes of the token that holds the n-th occurrence of `text` (which may span several tokens: the first). */
function scopesAt(line: Token[], text: string, occurrence = 1): string[] {
  const full = line.map((t) => t.text).join('');
  let at = -1;
  for (let i = 0; i < occurrence; i++) {
    at = full.indexOf(text, at + 1);
    assert.ok(at >= 0, `${JSON.stringify(text)} #${occurrence} in ${JSON.stringify(full)}`);
  }
  let pos = 0;
  for (const t of line) {
    if (at < pos + t.text.length) {
      return t.scopes;
    }
    pos += t.text.length;
  }
  throw new Error('unreachable');
}

function expectScope(line: Token[], text: string, scope: string, occurrence = 1): void {
  const scopes = scopesAt(line, text, occurrence);
  assert.ok(scopes.includes(scope), `${JSON.stringify(text)}: expected ${scope}, got ${scopes.join(' ')}`);
}

function expectPlain(line: Token[], text: string, occurrence = 1): void {
  const scopes = scopesAt(line, text, occurrence);
  assert.deepEqual(scopes.filter((s) => !s.startsWith('meta.')), ['source.shapescript'], `${JSON.stringify(text)}: ${scopes.join(' ')}`);
}

describe('grammar', () => {
  before(async () => {
    grammar = await loadGrammar();
  });

  it('is valid JSON with the scope name package.json gives it', () => {
    const raw = JSON.parse(fs.readFileSync(GRAMMAR, 'utf8'));
    assert.equal(raw.scopeName, 'source.shapescript');
    assert.ok(raw.repository && raw.patterns);
  });

  it('scopes the sample signature', () => {
    const [line] = tokenize('fn f(x: [b 16gh ?k]) -> [b] Prob over C = x |> softmax(over=C)  # c');
    expectScope(line, 'fn', 'storage.type.function.shapescript');
    expectScope(line, 'f', 'entity.name.function.shapescript', 2);          // 'f' of fn is the first
    expectScope(line, 'x', 'variable.parameter.shapescript');
    expectScope(line, '16', 'constant.numeric.integer.shapescript');
    expectScope(line, '16', 'meta.grouped-size.shapescript');
    expectScope(line, 'gh', 'variable.other.axis.shapescript');
    expectScope(line, '?', 'constant.other.unknown-size.shapescript');
    expectScope(line, 'k', 'constant.other.unknown-size.shapescript');
    expectScope(line, '->', 'keyword.operator.arrow.shapescript');
    expectPlain(line, 'b', 2);
    expectScope(line, 'Prob', 'support.type.domain.shapescript');
    expectScope(line, 'over', 'keyword.other.over.shapescript');
    expectScope(line, 'C', 'variable.other.axis.shapescript');
    expectScope(line, '=', 'keyword.operator.assignment.shapescript');
    expectScope(line, '=', 'keyword.operator.assignment.shapescript', 2);
    expectScope(line, '|>', 'keyword.operator.pipe.shapescript');
    expectScope(line, 'softmax', 'entity.name.function.shapescript');
    expectScope(line, 'softmax', 'meta.function-call.shapescript');
    expectScope(line, 'over', 'variable.parameter.keyword.shapescript', 2);
    expectScope(line, '# c', 'comment.line.number-sign.shapescript');
    assert.ok(!scopesAt(line, '# c').includes('meta.function-call.shapescript'), 'the call ended at )');
  });

  it('scopes % in an assert as arithmetic', () => {
    const [line] = tokenize('    assert D % H == 0');
    expectScope(line, '%', 'keyword.operator.arithmetic.shapescript');
    expectScope(line, '==', 'keyword.operator.comparison.shapescript');
  });

  it('scopes keywords, declarations, dtypes, numbers, strings and operators', () => {
    const lines = tokenize([
      'import python torch.nn',
      'dim Dh = D / H',
      'domain Temp = (0, 1]',
      'extern fn erf(x: Real) -> Signed = "torch.erf"',
      'export fn g(mut m: Mlp, lr: float = 1e-3) -> [] f32:',
      '    for i in 0..n:',
      '        if true and not_false or false:',
      '            y = x as [n D] bf16 |> gelu |> to Unit',
      '        else:',
      '            return -inf',
      'model Attention:',
      '    param w_qkv: [D 3*D] = normal(std=0.02)',
      '    buffer mask: [n n] Mask',
      'fn h(ids: [b] Index[V], e: [V D]) = e[ids] @ w => 2.5',
    ].join('\n'));
    const [imp, dim, domain, ext, exp, loop, cond, bind, els, ret, model, param, buffer, h] = lines;
    expectScope(imp, 'import', 'keyword.control.import.shapescript');
    expectScope(imp, 'python', 'keyword.other.python.shapescript');
    expectScope(imp, 'torch.nn', 'entity.name.namespace.shapescript');
    expectScope(dim, 'dim', 'storage.type.dim.shapescript');
    expectScope(dim, 'Dh', 'variable.other.constant.dim.shapescript');
    expectScope(dim, '/', 'keyword.operator.arithmetic.shapescript');
    expectScope(domain, 'domain', 'storage.type.domain.shapescript');
    expectScope(domain, 'Temp', 'entity.name.type.domain.shapescript');
    expectScope(ext, 'extern', 'storage.modifier.extern.shapescript');
    expectScope(ext, 'fn', 'storage.type.function.shapescript');
    expectScope(ext, 'erf', 'entity.name.function.shapescript');
    expectScope(ext, 'Real', 'support.type.domain.shapescript');
    expectScope(ext, 'Signed', 'support.type.domain.shapescript');
    expectScope(ext, '"torch.erf"', 'string.quoted.double.shapescript');
    expectScope(exp, 'export', 'storage.modifier.export.shapescript');
    expectScope(exp, 'mut', 'storage.modifier.mut.shapescript');
    expectScope(exp, 'm', 'variable.parameter.shapescript', 2);
    expectScope(exp, 'lr', 'variable.parameter.shapescript');
    expectScope(exp, '1e-3', 'constant.numeric.float.shapescript');
    expectScope(exp, 'f32', 'support.type.primitive.dtype.shapescript');
    expectScope(loop, 'for', 'keyword.control.flow.shapescript');
    expectScope(loop, 'in', 'keyword.control.flow.shapescript');
    expectScope(loop, '0', 'constant.numeric.integer.shapescript');
    expectScope(loop, '..', 'keyword.operator.range.shapescript');
    expectScope(cond, 'if', 'keyword.control.flow.shapescript');
    expectScope(cond, 'true', 'constant.language.boolean.shapescript');
    expectScope(cond, 'and', 'keyword.operator.logical.shapescript');
    expectPlain(cond, 'not_false');
    expectScope(cond, 'or', 'keyword.operator.logical.shapescript');
    expectScope(bind, 'as', 'keyword.operator.cast.shapescript');
    expectScope(bind, 'bf16', 'support.type.primitive.dtype.shapescript');
    expectScope(bind, 'gelu', 'entity.name.function.shapescript');
    expectScope(bind, 'to', 'keyword.operator.cast.shapescript');
    expectScope(bind, 'Unit', 'support.type.domain.shapescript');
    expectScope(els, 'else', 'keyword.control.flow.shapescript');
    expectScope(ret, 'return', 'keyword.control.flow.shapescript');
    expectScope(ret, 'inf', 'constant.language.infinity.shapescript');
    expectScope(model, 'model', 'storage.type.model.shapescript');
    expectScope(model, 'Attention', 'entity.name.type.class.shapescript');
    expectScope(param, 'param', 'storage.modifier.param.shapescript');
    expectScope(param, 'w_qkv', 'variable.other.property.shapescript');
    expectScope(param, '3', 'constant.numeric.integer.shapescript');
    expectScope(param, 'normal', 'entity.name.function.shapescript');
    expectScope(param, 'std', 'variable.parameter.keyword.shapescript');
    expectScope(param, '0.02', 'constant.numeric.float.shapescript');
    expectScope(buffer, 'buffer', 'storage.modifier.buffer.shapescript');
    expectScope(buffer, 'Mask', 'support.type.domain.shapescript');
    expectScope(h, 'Index', 'support.type.domain.shapescript');
    expectScope(h, '@', 'keyword.operator.matrix.shapescript');
    expectScope(h, '=>', 'keyword.operator.arrow.lambda.shapescript');
  });

  it('leaves contextual words plain where they are ordinary names', () => {
    const [a, b, c] = tokenize('    model = over + data\n    x = sum(x, over=D)\nfn over(x: Real) = x');
    expectPlain(a, 'model');
    expectPlain(a, 'over');
    expectPlain(a, 'data');
    expectScope(b, 'over', 'variable.parameter.keyword.shapescript');
    expectScope(c, 'over', 'entity.name.function.shapescript');
  });

  it('scopes doc comments, comments and the math in them', () => {
    const [doc, plain, money, escaped] = tokenize([
      '## The scores are scaled by $1/\\sqrt{D_h}$ before the $$\\mathrm{softmax}$$.',
      '# one projection, `$x$` is code',
      '# costs $3 and $4, not math',
      '# a literal \\$ sign',
    ].join('\n'));
    expectScope(doc, '##', 'comment.line.documentation.shapescript');
    expectScope(doc, 'The', 'comment.line.documentation.shapescript');
    expectScope(doc, '1/', 'string.other.math.inline.shapescript');
    expectScope(doc, '1/', 'comment.line.documentation.shapescript');
    expectScope(doc, 'mathrm', 'string.other.math.display.shapescript');
    expectScope(plain, 'one', 'comment.line.number-sign.shapescript');
    assert.ok(!scopesAt(plain, 'one').includes('comment.line.documentation.shapescript'));
    expectScope(plain, '`$x$`', 'markup.inline.raw.shapescript');
    assert.ok(!scopesAt(money, '3').some((s) => s.startsWith('string.other.math')), 'Pandoc: $3 and $4 is text');
    expectScope(escaped, '\\$', 'constant.character.escape.shapescript');
  });

  it('scopes attention.ss without losing track (every comment line is a comment, every fn is a function)', () => {
    const file = path.resolve(ROOT, '..', 'examples', 'attention.ss');
    if (!fs.existsSync(file)) {
      return; // the extension folder was copied out of the repository
    }
    const text = fs.readFileSync(file, 'utf8');
    const lines = tokenize(text);
    text.split('\n').forEach((src, i) => {
      const m = /^(\s*)(#+)/.exec(src);
      if (m) {
        const scope = m[2] === '##' ? 'comment.line.documentation.shapescript' : 'comment.line.number-sign.shapescript';
        expectScope(lines[i], m[2], scope);
      }
      const fn = /^fn (\w+)/.exec(src);
      if (fn) {
        expectScope(lines[i], fn[1], 'entity.name.function.shapescript');
        assert.ok(!lines[i].at(-1)!.scopes.includes('meta.function.shapescript'), `line ${i + 1}: the parameter list ended`);
      }
    });
  });
});

describe('grammar: patterns', () => {
  before(async () => {
    grammar ??= await loadGrammar();
  });

  it('a group in a pattern is not a call', () => {
    const [line] = tokenize('    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)');
    expectScope(line, 'split', 'entity.name.function.shapescript');
    expectPlain(line, 'n', 2);
    expectScope(line, '->', 'keyword.operator.arrow.shapescript');
    expectScope(line, ')', 'punctuation.definition.arguments.end.shapescript', 2);
  });
});
