package corpus

import (
	"fmt"
	"strings"
)

// The generated TypeScript project: src/types.ts, 49 utility modules and
// 19 feature directories of 50 modules, 1,000 files in all. Feature
// modules form import chains of 10 and each imports a utility module;
// every 19th imports the types, so 50 files import types.ts directly and
// the files after them in their chains indirectly.
const (
	tsUtils       = 49
	tsFeatureDirs = 19
	tsDirFiles    = 50
	tsChain       = 10
	tsTypesEvery  = 19
	// TSTypesImporters is how many feature modules import types.ts.
	TSTypesImporters = (tsFeatureDirs*tsDirFiles + tsTypesEvery - 1) / tsTypesEvery
)

const tsConfig = `{
  "compilerOptions": {
    "target": "es2022",
    "module": "preserve",
    "moduleResolution": "bundler",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true
  },
  "include": ["src"]
}
`

const tsTypes = `export type Id = string;

export interface Money {
  amount: number;
  currency: string;
}

export interface User {
  id: Id;
  name: string;
  email: string;
  balance: Money;
}

export interface OrderLine {
  sku: string;
  quantity: number;
  price: Money;
}

export interface Order {
  id: Id;
  userId: Id;
  lines: OrderLine[];
  total: Money;
}

export function money(amount: number, currency = "EUR"): Money {
  return { amount, currency };
}
`

// TSProject returns the generated project's files, by relative path.
func TSProject() map[string]string {
	files := map[string]string{"tsconfig.json": tsConfig, "src/types.ts": tsTypes}
	for u := range tsUtils {
		files[fmt.Sprintf("src/util/u%02d.ts", u)] = tsUtil(u)
	}
	for d := range tsFeatureDirs {
		for k := range tsDirFiles {
			files[fmt.Sprintf("src/f%02d/m%02d.ts", d, k)] = tsModule(d, k)
		}
	}
	return files
}

func tsUtil(u int) string {
	var s strings.Builder
	sum := fmt.Sprintf("sumU%02d", u)
	if u > 0 {
		sum = fmt.Sprintf("sumU%02d", u/2)
		fmt.Fprintf(&s, "import { %s } from \"./u%02d\";\n\n", sum, u/2)
	}
	fmt.Fprintf(&s, `export function clampU%02[1]d(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

export function formatU%02[1]d(n: number): string {
  return n.toFixed(2);
}

export function sumU%02[1]d(xs: readonly number[]): number {
  let total = 0;
  for (const x of xs) {
    total += x;
  }
  return total;
}

export function meanU%02[1]d(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : %[2]s(xs) / xs.length;
}
`, u, sum)
	return s.String()
}

func tsModule(d, k int) string {
	i := d*tsDirFiles + k
	id := fmt.Sprintf("F%02dM%02d", d, k)
	util := fmt.Sprintf("U%02d", i%tsUtils)
	var s strings.Builder
	fmt.Fprintf(&s, "import { clamp%[1]s, format%[1]s } from \"../util/%[2]s\";\n", util, strings.ToLower(util))
	prev := "const prev = s;"
	if k%tsChain != 0 {
		pid := fmt.Sprintf("F%02dM%02d", d, k-1)
		fmt.Fprintf(&s, "import { State%[1]s, step%[1]s } from \"./m%02[2]d\";\n", pid, k-1)
		prev = fmt.Sprintf("const prev: State%[1]s = step%[1]s({ count: s.count, label: s.label }, n);", pid)
	}
	typed := i%tsTypesEvery == 0
	if typed {
		s.WriteString("import { Money, Order, OrderLine, User, money } from \"../types\";\n")
	}
	fmt.Fprintf(&s, `
export interface State%[1]s {
  count: number;
  label: string;
}

export function step%[1]s(s: State%[1]s, n: number): State%[1]s {
  %[2]s
  return { count: clamp%[3]s(prev.count + n, 0, 1000), label: format%[3]s(prev.count) };
}

export function describe%[1]s(s: State%[1]s): string {
  return `+"`${s.label} (${s.count})`"+`;
}

export function batch%[1]s(items: readonly number[]): State%[1]s[] {
  return items.map((n) => step%[1]s({ count: n, label: "" }, n));
}
`, id, prev, util)
	if typed {
		fmt.Fprintf(&s, `
export function owner%[1]s(order: Order, users: readonly User[]): User | undefined {
  return users.find((u) => u.id === order.userId);
}

export function total%[1]s(lines: readonly OrderLine[]): Money {
  return money(lines.reduce((sum, l) => sum + l.price.amount * l.quantity, 0));
}
`, id)
	}
	return s.String()
}
