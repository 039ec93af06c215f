// /studio/skills — prompt overlays with tool allowlists (docs/API.md Skill).
import { ResourcePage } from '../../../shared/components/resource-page';
import { useDocumentTitle } from '../../../shared/use-document-title';
import { useDeleteSkill, useSkills } from '../hooks/use-skills';
import { SkillForm } from './skill-form';

export function SkillsPage() {
  useDocumentTitle('Skills');
  const skills = useSkills();
  const del = useDeleteSkill();
  return (
    <ResourcePage
      title="Skills"
      subtitle="Reusable prompt overlays and the tools they allow. Agents combine skills."
      noun="skill"
      testId="skills"
      query={skills}
      nameOf={(s) => s.name}
      Form={SkillForm}
      deleteMutation={del}
      emptyText="Write a skill: a Markdown prompt overlay plus the workspace tools it may use."
      columns={[
        { header: 'Name', cell: (s) => <strong>{s.name}</strong> },
        {
          header: 'Description',
          cell: (s) => <span className="clamp">{s.description || <span className="muted">—</span>}</span>,
        },
        {
          header: 'Tools',
          cell: (s) =>
            s.tool_allowlist.length ? (
              <span className="chips">
                {s.tool_allowlist.map((t) => (
                  <code key={t} className="chip">
                    {t}
                  </code>
                ))}
              </span>
            ) : (
              <span className="muted">none</span>
            ),
        },
      ]}
    />
  );
}
