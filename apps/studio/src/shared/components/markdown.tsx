// Markdown as the agents write it (chat replies, workspace files), rendered with react-markdown and
// GitHub-flavoured Markdown (tables, task lists). Sanitised: raw HTML in the text is dropped (no
// rehype-raw), and link/image URLs go through react-markdown's default transform, which removes
// `javascript:` and other unsafe protocols. Links open in a new tab.
import { memo } from 'react';
import ReactMarkdown, { defaultUrlTransform, type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

const components: Components = {
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
};

export const Markdown = memo(function Markdown({
  text,
  className,
  testId,
}: {
  text: string;
  className?: string;
  testId?: string;
}) {
  return (
    <div className={`markdown${className ? ` ${className}` : ''}`} data-testid={testId}>
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml urlTransform={defaultUrlTransform} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});

export function isMarkdownPath(path: string): boolean {
  return /\.(md|markdown|mdx)$/i.test(path);
}
