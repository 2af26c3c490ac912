const fs = require('fs');
let src = fs.readFileSync(process.argv[2], 'utf8');
src = src.replace(/^import .*$/mg, '');
const exp = src.lastIndexOf('export {');
src = src.slice(0, exp);
const esc = s => String(s).replace(/&/g,'&amp;').replace(/</g,'&lt;').replace(/"/g,'&quot;');
const attr = k => ({className:'class', xlinkHref:'xlink:href', xmlnsXlink:'xmlns:xlink'}[k] || k.replace(/[A-Z]/g, m => '-' + m.toLowerCase()));
const keep = new Set(['viewBox','preserveAspectRatio','patternUnits','gradientUnits','gradientTransform','patternTransform','clipPathUnits','stdDeviation']);
const React = { createElement(type, props, ...children) {
  let a = '';
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || k === 'aria-labelledby') continue;
    a += ' ' + (keep.has(k) ? k : attr(k)) + '="' + esc(v) + '"';
  }
  const body = children.flat().filter(c => c != null && c !== false).map(c => typeof c === 'string' ? c : c).join('');
  return '<' + type + a + (body ? '>' + body + '</' + type + '>' : '/>');
}};
const _extends = Object.assign;
const names = [...src.matchAll(/^const (Svg[A-Za-z0-9]+) =/mg)].map(m => m[1]);
const f = new Function('React', '_extends', src + '\nreturn {' + names.join(',') + '};');
const comps = f(React, _extends);
for (const n of names) {
  let svg = comps[n]({});
  if (!svg.includes('xmlns:xlink')) svg = svg.replace('<svg ', '<svg xmlns:xlink="http://www.w3.org/1999/xlink" ');
  fs.writeFileSync(process.argv[3] + '/' + n.slice(3) + '.svg', '<?xml version="1.0" encoding="UTF-8"?>\n' + svg + '\n');
}
console.log(names.length);
