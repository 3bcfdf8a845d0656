import { useState } from 'react';
import { Control, FieldErrors, useFieldArray, UseFormRegister, useWatch } from 'react-hook-form';
import { described, FieldError } from '../forms';
import { RULE_EFFECTS, RULE_KINDS, RuleKind, RuleSetting, settingsOf } from '@bursar/policy-rules';
import { blankRule, RuleRow } from './rule-rows';

const KIND_LABELS: Record<RuleKind, [label: string, what: string]> = {
  cost_cap: ['Cost cap', 'Denies a single request above the maximum.'],
  spend_window: ['Spend window', 'Denies once spending within the sliding window would pass the maximum.'],
  monthly_spend_cap: ['Monthly cap', 'Denies once spending this calendar month (UTC) would pass the maximum.'],
  rate_limit: ['Rate limit', 'Denies past the maximum number of requests within the window.'],
  approval_threshold: ['Approval threshold', 'Holds a request above the amount for a person to approve.'],
  action_allowlist: ['Action allowlist', 'Denies action types not listed (patterns like payment.*).'],
  resource_allowlist: ['Resource allowlist', 'Denies resources (payees, for payments) not listed.'],
  condition: ['Condition', 'Denies, allows or holds when the condition matches.'],
};
const SETTING_LABELS: Record<Exclude<RuleSetting, 'effect' | 'when'>, string> = {
  max_cents: 'Maximum (cents)',
  window_seconds: 'Window (seconds)',
  max_actions: 'Maximum requests',
  above_cents: 'Hold above (cents)',
  allow: 'Allowed (comma-separated)',
};

interface RulesForm {
  rules: RuleRow[];
}

/** The rules as typed rows: one per rule, showing only the settings of its kind. */
export function RuleEditor({ control, register, errors }: { control: Control<RulesForm>; register: UseFormRegister<RulesForm>; errors: FieldErrors }) {
  const { fields, append, remove, move } = useFieldArray({ control, name: 'rules' });
  return (
    <fieldset className="rules" data-testid="rule-editor">
      <legend>Rules</legend>
      {fields.length === 0 && <p className="muted">No rules beyond the caps above.</p>}
      <ol className="plain">
        {fields.map((field, i) => (
          <li key={field.id} className="card rule" data-testid={`rule-${i}`}>
            <RuleFields index={i} control={control} register={register} errors={errors} />
            <div className="actions">
              <button type="button" disabled={i === 0} onClick={() => move(i, i - 1)} aria-label={`Move rule ${i + 1} up`}>
                ↑
              </button>
              <button type="button" disabled={i === fields.length - 1} onClick={() => move(i, i + 1)} aria-label={`Move rule ${i + 1} down`}>
                ↓
              </button>
              <button type="button" className="danger" onClick={() => remove(i)}>
                Remove rule {i + 1}
              </button>
            </div>
          </li>
        ))}
      </ol>
      <AddRule onAdd={(kind) => append(blankRule(kind))} />
      <FieldError errors={errors} name="rules" />
    </fieldset>
  );
}

function RuleFields({ index, control, register, errors }: { index: number; control: Control<RulesForm>; register: UseFormRegister<RulesForm>; errors: FieldErrors }) {
  const kind = useWatch({ control, name: `rules.${index}.kind` });
  const at = <F extends keyof RuleRow>(f: F) => `rules.${index}.${f}` as const;
  const n = index + 1;
  return (
    <div className="grid">
      <label>
        Rule {n} kind
        <select {...register(at('kind'))} {...described(errors, at('kind'))}>
          {RULE_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k][0]}
            </option>
          ))}
        </select>
        <span className="muted">{KIND_LABELS[kind][1]}</span>
        <FieldError errors={errors} name={at('kind')} />
      </label>
      <label>
        Rule {n} name (optional)
        <input {...register(at('rule_name'))} placeholder={kind} {...described(errors, at('rule_name'))} />
        <FieldError errors={errors} name={at('rule_name')} />
      </label>
      {kind !== 'action_allowlist' && (
        <label>
          Rule {n} applies to action types (comma-separated; empty for all)
          <input {...register(at('action_types'))} placeholder="payment.*" {...described(errors, at('action_types'))} />
          <FieldError errors={errors} name={at('action_types')} />
        </label>
      )}
      {settingsOf(kind).map((setting) =>
        setting === 'effect' ? (
          <label key={setting}>
            Rule {n} effect
            <select {...register(at('effect'))}>
              {RULE_EFFECTS.map((e) => (
                <option key={e}>{e}</option>
              ))}
            </select>
          </label>
        ) : setting === 'when' ? (
          <label key={setting} className="wide">
            Rule {n} condition (JSON: {'{field, operator, value}'} or all_of / any_of / not)
            <textarea rows={4} spellCheck={false} {...register(at('when'))} placeholder='{"field": "resource", "operator": "ends_with", "value": ".ru"}' {...described(errors, at('when'))} />
            <FieldError errors={errors} name={at('when')} />
          </label>
        ) : (
          <label key={setting}>
            Rule {n} {SETTING_LABELS[setting].toLowerCase()}
            <input {...register(at(setting))} inputMode={setting === 'allow' ? undefined : 'numeric'} {...described(errors, at(setting))} />
            <FieldError errors={errors} name={at(setting)} />
          </label>
        ),
      )}
    </div>
  );
}

function AddRule({ onAdd }: { onAdd(kind: RuleKind): void }) {
  const [kind, setKind] = useState<RuleKind>('cost_cap');
  return (
    <div className="inline" role="group" aria-label="Add a rule">
      <label>
        New rule
        <select value={kind} onChange={(e) => setKind(e.target.value as RuleKind)}>
          {RULE_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k][0]}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={() => onAdd(kind)}>
        Add rule
      </button>
    </div>
  );
}
