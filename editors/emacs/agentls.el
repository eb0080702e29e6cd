;;; agentls.el --- agentls, a coding agent as a language server, through eglot  -*- lexical-binding: t; -*-

;; Works with Emacs 28 + eglot 1.9 (Debian's elpa-eglot) and with the
;; eglot built into Emacs 29 and newer.

;;; Commentary:

;; agentls is a language server that runs a coding agent: you ask, a model
;; answers, and its edits arrive in your buffers as ordinary changes.  It
;; also applies a reply pasted from any chat.  This file registers agentls
;; with eglot and gives its commands (workspace/executeCommand) names:
;;
;;   (add-to-list 'load-path "~/src/agentls/editors/emacs")
;;   (require 'agentls)
;;   (agentls-setup)
;;   (global-set-key (kbd "C-c a") agentls-command-map)
;;
;; Eglot runs ONE server per major mode and project.  `agentls-setup'
;; gives agentls the Markdown buffers (pasted replies, chat documents),
;; where it replaces marksman if you use that.  Add a programming mode to
;; `agentls-modes' only if you accept that agentls then REPLACES that
;; mode's usual server (gopls, pyright, ...) under eglot: no completion or
;; go-to-definition there, but `AI!' comments, "Agent: fix" and
;; `agentls-undo' on those files.  To keep both, start an LSP multiplexer
;; instead, such as rassumfrassum (`rass -- gopls -- agentls') or lspx;
;; this file has not been tested behind one.
;;
;; `agentls-apply-reply' and `agentls-ask' work in any buffer as long as
;; an agentls server runs for the project: the text of a buffer agentls
;; does not manage is sent as text.

;;; Code:

(require 'cl-lib)
(require 'seq)
(require 'subr-x)
(require 'project)
(require 'jsonrpc)
(require 'eglot)

(defgroup agentls nil
  "A coding agent as a language server, through eglot."
  :group 'tools
  :prefix "agentls-")

(defcustom agentls-program '("agentls")
  "The agentls command, a list: program and arguments.
Example: (\"agentls\" \"serve\" \"--log\" \"/tmp/agentls.log\")."
  :type '(repeat string))

(defcustom agentls-modes
  '((markdown-mode :language-id "markdown")
    (gfm-mode :language-id "markdown")
    (agentls-markdown-mode :language-id "markdown"))
  "Major modes whose buffers eglot hands to agentls, one server per project.
Each element is a mode or (MODE :language-id ID), as in
`eglot-server-programs'.  A programming mode listed here loses its
usual eglot server (see the Commentary)."
  :type '(repeat sexp))

(defcustom agentls-settings nil
  "The \"agentls\" settings, a plist sent as initializationOptions.
Example: (:model \"gpt-4.1\" :applyMode \"review\").  The project's
.agentls/settings.json is read too; these override it.  The API key is
read from the environment variable named by :apiKeyEnv (default
OPENAI_API_KEY), never from here.  Per project, `eglot-workspace-configuration'
with an :agentls section also works."
  :type 'plist)

(defcustom agentls-ensure t
  "Non-nil: `agentls-setup' starts agentls when a buffer of `agentls-modes' opens."
  :type 'boolean)

(define-derived-mode agentls-markdown-mode text-mode "Markdown"
  "Plain text mode for .md files when the markdown-mode package is missing.
It exists so that agentls, which needs Markdown documents, can manage
them on a bare Emacs.")

(defconst agentls--chat-file-re "/\\.agentls/chat/[^/]+\\.md\\'")

;;;; Finding the server

(defun agentls--agentls-p (server)
  "Non-nil if SERVER is agentls (it offers agentls.applyReply)."
  (let* ((caps (ignore-errors (eglot--capabilities server)))
         (commands (plist-get (plist-get caps :executeCommandProvider) :commands)))
    (and commands (seq-contains-p commands "agentls.applyReply"))))

(defun agentls--all-servers ()
  (let (all)
    (maphash (lambda (_project servers) (setq all (append all servers)))
             eglot--servers-by-project)
    all))

(defun agentls--server (&optional noerror)
  "The agentls server for the current buffer: the one managing it, else
the one of its project, else any.  Signal a `user-error' if none runs,
unless NOERROR."
  (let ((current (ignore-errors (eglot-current-server)))
        (project (ignore-errors (project-current))))
    (or (and current (agentls--agentls-p current) current)
        (and project (seq-find #'agentls--agentls-p
                               (gethash project eglot--servers-by-project)))
        (seq-find #'agentls--agentls-p (agentls--all-servers))
        (unless noerror
          (user-error "agentls is not running: open a Markdown file of your project (M-x eglot there if it does not start)")))))

(defun agentls--attached-p (server)
  "Non-nil if the current buffer is managed by SERVER."
  (and (bound-and-true-p eglot--managed-mode)
       (eq (ignore-errors (eglot-current-server)) server)))

;;;; Running commands

(defun agentls--drain (server)
  "Read the messages from SERVER that arrived with a reply and wait unread.
jsonrpc 1.0.14 (Emacs 28) leaves unparsed whatever came in the same
chunk as the reply to a synchronous request until the server sends
more; agentls answers a command at once and then sends its edit, and
would wait for Emacs's answer for ever."
  (let ((proc (ignore-errors (jsonrpc--process server))))
    (when (and proc (process-live-p proc) (buffer-live-p (process-buffer proc))
               (> (buffer-size (process-buffer proc)) 0))
      (funcall (process-filter proc) proc ""))))

(defun agentls--error-message (err)
  "The server's message in the `jsonrpc-error' ERR, or nil.
jsonrpc signals (jsonrpc-error \"request id=N failed:\"
 (jsonrpc-error-code . C) (jsonrpc-error-message . M) ...)."
  (cdr (assq 'jsonrpc-error-message (seq-filter #'consp (cdr err)))))

(defun agentls--refusal (message)
  "MESSAGE, the server's refusal of a command, as the user should read it.
The server names its settings; in Emacs they are `agentls-settings'."
  (if (string-match-p "\\`no model configured" message)
      (concat message "; in Emacs: (setq agentls-settings '(:model \"gpt-4.1\")) "
              "and M-x eglot-reconnect, or AGENTLS_MODEL in the environment Emacs started with")
    message))

(defmacro agentls--readable-errors (&rest body)
  "Run BODY; a command the server refuses is a `user-error' with its message.
Without this, Emacs shows the raw (jsonrpc-error \"request id=3 failed:\"
 (jsonrpc-error-code . -32602) ...)."
  (declare (indent 0) (debug t))
  `(condition-case err
       (progn ,@body)
     (jsonrpc-error
      (let ((message (agentls--error-message err)))
        (if message
            (user-error "agentls: %s" (agentls--refusal message))
          (signal (car err) (cdr err)))))))

(defun agentls--execute (command &optional args server)
  "Run agentls COMMAND with the JSON object ARGS (a plist) and return its result.
Changes of the current buffer not yet sent to SERVER are sent first.  A
refusal signals a `user-error' with the server's message."
  (let ((server (or server (agentls--server))))
    (when (and (agentls--attached-p server)
               (fboundp 'eglot--signal-textDocument/didChange))
      (eglot--signal-textDocument/didChange))
    (prog1 (agentls--readable-errors
             (jsonrpc-request server :workspace/executeCommand
                              (list :command command
                                    :arguments (vector (or args (make-hash-table))))))
      (agentls--drain server))))

;; The same for the commands of code actions (M-x eglot-code-actions).
(cl-defmethod eglot-execute-command :around (server _command _arguments)
  (if (agentls--agentls-p server)
      (agentls--readable-errors (cl-call-next-method))
    (cl-call-next-method)))
(cl-defmethod eglot-execute-command :after (server _command _arguments)
  (when (agentls--agentls-p server) (agentls--drain server)))
(when (cl-generic-p 'eglot-execute)     ; eglot 1.16 and newer
  (cl-defmethod eglot-execute :after (server _action)
    (when (agentls--agentls-p server) (agentls--drain server))))

(defun agentls--uri ()
  (eglot--path-to-uri (buffer-file-name)))

(defun agentls--range (beg end)
  (list :start (eglot--pos-to-lsp-position beg)
        :end (eglot--pos-to-lsp-position end)))

(defun agentls--region ()
  "The active region as (BEG . END), or nil."
  (and (use-region-p) (cons (region-beginning) (region-end))))

;;;###autoload
(defun agentls-ask (prompt &optional beg end)
  "Ask the agent PROMPT about this buffer and, if active, the region BEG..END.
The agent's edits land in your buffers as they come; the turn's
progress and how it ended show in the echo area."
  (interactive
   (let ((region (agentls--region)))
     (list (read-string "Ask agent: ") (car region) (cdr region))))
  (when (string-empty-p (string-trim prompt))
    (user-error "agentls: nothing to ask"))
  (let* ((server (agentls--server))
         (args (list :prompt prompt)))
    (cond ((agentls--attached-p server)
           (setq args (plist-put args :uri (agentls--uri)))
           (when beg (setq args (plist-put args :range (agentls--range beg end)))))
          (beg
           ;; The server cannot read this buffer: the selection goes in the prompt.
           (setq args (plist-put args :prompt
                                 (format "%s\n\nSelected text:\n```\n%s\n```"
                                         prompt (buffer-substring-no-properties beg end))))))
    (let ((result (agentls--execute "agentls.ask" args server)))
      (when-let ((turn (plist-get result :turn)))
        (message "agentls: agent turn %s started" turn))
      result)))

;;;###autoload
(defun agentls-apply-reply (&optional beg end)
  "Apply the agent reply in the region BEG..END, or in the whole buffer.
A reply pasted from any chat, with ```patch, ```save or ```patch_many
blocks: all its edits land as one change per buffer, or none."
  (interactive (let ((region (agentls--region))) (list (car region) (cdr region))))
  (let* ((server (agentls--server))
         (args (cond ((agentls--attached-p server)
                      (let ((a (list :uri (agentls--uri))))
                        (if beg (plist-put a :range (agentls--range beg end)) a)))
                     (t (list :text (if beg (buffer-substring-no-properties beg end)
                                      (buffer-substring-no-properties (point-min) (point-max))))))))
    (agentls--execute "agentls.applyReply" args server)))

(defun agentls--turn-args (turn)
  (if (numberp turn) (list :turn turn) nil))

;;;###autoload
(defun agentls-cancel (&optional turn)
  "Cancel running agent work: all of it, or turn TURN (a numeric prefix)."
  (interactive "P")
  (agentls--execute "agentls.cancel" (agentls--turn-args (and turn (prefix-numeric-value turn)))))

;;;###autoload
(defun agentls-undo (&optional turn)
  "Undo the last agent edit in all its files, or that of turn TURN.
TURN is the numeric prefix argument."
  (interactive "P")
  (agentls--execute "agentls.turn.undo" (agentls--turn-args (and turn (prefix-numeric-value turn)))))

;;;###autoload
(defun agentls-redo (&optional turn)
  "Redo the last undone agent edit, or that of turn TURN (a numeric prefix)."
  (interactive "P")
  (agentls--execute "agentls.turn.redo" (agentls--turn-args (and turn (prefix-numeric-value turn)))))

(defvar agentls--approval-digests nil
  "The approvals shown with a listing, newest first: (REQUEST . DIGEST).
A command of several lines (or a long one) is approved only with the
digest the server prints after listing all of it, so that a key pressed
after reading the echo area cannot run a line that was not shown.")

(defun agentls--approval-args (arg flag &optional request)
  "Arguments for approve/deny from the raw prefix ARG: a number picks
the request (else REQUEST, when given), \\[universal-argument] alone
sets FLAG.  A request shown with a listing carries its digest."
  (let* ((request (if (numberp arg) arg request))
         (digest (and request (cdr (assq request agentls--approval-digests)))))
    (append (and request (list :request request))
            (and digest (list :digest digest))
            (and (consp arg) (list flag t)))))

(defun agentls--answer-approval (command arg flag)
  "Answer an approval with COMMAND, from the raw prefix ARG (see
`agentls--approval-args').  Without a number, the newest approval shown
with a listing is answered (with its digest), skipping those answered
elsewhere or timed out; with none, the oldest waiting."
  (let (result)
    (if (numberp arg)
        (setq result (agentls--execute command (agentls--approval-args arg flag)))
      (while (and (not result) agentls--approval-digests)
        (let ((request (caar agentls--approval-digests)))
          (condition-case err
              (setq result (agentls--execute command (agentls--approval-args arg flag request)))
            (user-error
             (unless (string-match-p "no command waits for approval as request" (error-message-string err))
               (signal (car err) (cdr err)))))
          (unless result (pop agentls--approval-digests))))
      (unless result
        (setq result (agentls--execute command (agentls--approval-args arg flag)))))
    (setq agentls--approval-digests
          (assq-delete-all (plist-get result :request) agentls--approval-digests))
    result))

;;;###autoload
(defun agentls-approve (&optional arg)
  "Let the agent run the command waiting for approval (the oldest).
With \\[universal-argument], also allow such commands from now on; with
a numeric prefix N, answer request N."
  (interactive "P")
  (let ((result (agentls--answer-approval "agentls.approve" arg :always)))
    (message "agentls: request %s: %s" (plist-get result :request) (plist-get result :answer))
    result))

;;;###autoload
(defun agentls-deny (&optional arg)
  "Refuse the command waiting for approval (the oldest).
With \\[universal-argument], also stop the agent's turn; with a numeric
prefix N, answer request N."
  (interactive "P")
  (let ((result (agentls--answer-approval "agentls.deny" arg :stop)))
    (message "agentls: request %s: %s" (plist-get result :request) (plist-get result :answer))
    result))

;;;###autoload
(defun agentls-chat (&optional name)
  "Open the chat document .agentls/chat/NAME.md, or send the one in this buffer.
In a chat document, with no NAME, send it to the agent: the reply
streams into the document.  Otherwise open chat NAME (default \"chat\")."
  (interactive (list (unless (agentls--chat-buffer-p)
                       (let ((n (read-string "Chat name (default chat): ")))
                         (unless (string-empty-p n) n)))))
  (let ((server (agentls--server)))
    (if (and (null name) (agentls--chat-buffer-p) (agentls--attached-p server))
        (agentls--execute "agentls.chat.send" (list :uri (agentls--uri)) server)
      (let* ((result (agentls--execute "agentls.chat.open" (and name (list :name name)) server))
             (uri (plist-get result :uri)))
        ;; eglot 1.9 has no window/showDocument: open it here.
        (when uri (find-file (eglot--uri-to-path uri)))
        result))))

(defun agentls--chat-buffer-p ()
  (and (buffer-file-name) (string-match-p agentls--chat-file-re (buffer-file-name))))

;;;; What the server asks of Emacs

;; The server saves the buffers it edited before the agent runs a command
;; that reads the disk ("saveDocuments": t in initializationOptions says
;; this handler exists).  A buffer that cannot be saved is reported and
;; left alone; the server tells the agent it is unsaved.
(cl-defmethod eglot-handle-request
  (_server (_method (eql agentls/saveDocuments)) &key uris &allow-other-keys)
  "Handle agentls's request to save the buffers of URIS."
  (let (saved)
    (seq-doseq (uri uris)
      (let* ((path (ignore-errors (eglot--uri-to-path uri)))
             (buf (and path (find-buffer-visiting path))))
        (when (and buf (buffer-modified-p buf))
          (condition-case err
              (with-current-buffer buf
                (save-buffer)
                (unless (buffer-modified-p) (push uri saved)))
            (error (message "agentls: could not save %s: %s" path (error-message-string err)))))))
    (list :saved (vconcat (nreverse saved)))))

;; A command the agent wants to run is put to Emacs as a message (eglot
;; offers no buttons) that names the server's commands: "approve or deny
;; it with the commands agentls.approve / agentls.deny {\"request\": 3}".
;; Emacs users answer with keys, so the message names the keys bound to
;; `agentls-approve' and `agentls-deny' instead.
(defconst agentls--approval-commands-re
  "with the commands agentls\\.approve / agentls\\.deny {\"request\": \\([0-9]+\\)\\(?:, \"digest\": \"\\([0-9a-f]+\\)\"\\)?}"
  "The part of the server's approval message that names its commands
(and, after a listing of several lines, the digest of that listing).")

(defun agentls--key (command)
  "The keys that run COMMAND, as text, or M-x COMMAND."
  (let ((keys (where-is-internal command nil t)))
    (if keys (key-description keys) (format "M-x %s" command))))

;; The chat's hint ("your chat is ...: open it, write under the last
;; "## You" heading, and run the code action "Send to agent"") comes
;; because eglot 1.9 cannot show a document; `agentls-chat' has opened it,
;; and sends it with its key.
(defconst agentls--chat-send-action-re
  "and run the code action \"Send to agent\"\\'"
  "The part of the server's chat hint that names the code action.")

(defun agentls--with-keys (message)
  "MESSAGE from the server, with the approval and chat commands as Emacs keys."
  (cond
   ((string-match agentls--approval-commands-re message)
    (let ((request (match-string 1 message))
          (digest (match-string 2 message))
          (approve (agentls--key #'agentls-approve))
          (deny (agentls--key #'agentls-deny)))
      (when digest
        (push (cons (string-to-number request) digest) agentls--approval-digests))
      (replace-match
       (format "with %s / %s (this is request %s: C-u %s %s answers it when several wait; C-u %s always allows such commands, C-u %s also stops the turn)"
               approve deny request request approve approve deny)
       t t message)))
   ((string-match agentls--chat-send-action-re message)
    (replace-match (format "and send it with %s" (agentls--key #'agentls-chat)) t t message))
   ;; The server names Emacs's commands as M-x agentls-undo and so on:
   ;; the keys bound to them, where there are some.
   (t (replace-regexp-in-string
       "M-x \\(agentls-[a-z-]+\\)"
       (lambda (m)
         (let ((command (intern (match-string 1 m))))
           (if (fboundp command) (agentls--key command) m)))
       message t t))))

;;;; The output channel

;; agentls sends commands' output, the model's answers and its own log as
;; window/logMessage, which eglot keeps only in its events buffer.  They
;; are collected in their own buffer as well, which `agentls-output'
;; shows: "the rest is in M-x agentls-output" then leads somewhere.
(defconst agentls--output-buffer "*agentls output*"
  "The buffer of agentls's log messages.")

(cl-defmethod eglot-handle-notification :before
  (server (_method (eql window/logMessage)) &key message &allow-other-keys)
  "Keep agentls's log MESSAGE in the output buffer."
  (when (and (stringp message) (agentls--agentls-p server))
    (with-current-buffer (get-buffer-create agentls--output-buffer)
      (let ((inhibit-read-only t)
            (at-end (= (point) (point-max))))
        (save-excursion
          (goto-char (point-max))
          (insert message "\n"))
        (when at-end (goto-char (point-max))))
      (setq buffer-read-only t))))

(defun agentls-output ()
  "Show agentls's output: commands' output, the agent's answers, its log."
  (interactive)
  (display-buffer (get-buffer-create agentls--output-buffer)))

(cl-defmethod eglot-handle-notification :around
  (server (method (eql window/showMessage)) &rest params)
  "Show agentls's approval messages with the keys that answer them."
  (let ((message (plist-get params :message)))
    (if (and (stringp message) (agentls--agentls-p server))
        (apply #'cl-call-next-method server method
               (plist-put (copy-sequence params) :message (agentls--with-keys message)))
      (apply #'cl-call-next-method server method params))))

;; Two things about agentls's edits (workspace/applyEdit) in eglot:
;; - eglot 1.9 knows only the text edits of a WorkspaceEdit's
;;   documentChanges: it takes a CreateFile entry for an edit of a file
;;   with no name.  agentls follows each CreateFile with the new file's
;;   whole text as an edit of the (empty) file, so dropping the CreateFile
;;   makes eglot open a buffer for the new file and insert the text.  The buffer is left unsaved, like every
;;   agent edit.  Deleting or renaming a file is refused (nothing changes).
;; - agentls checks that each edited buffer really changed (Neovim 0.7
;;   skips some and says it applied them); eglot tells the server of a
;;   change only when Emacs has been idle for `eglot-send-changes-idle-time'.
;;   The changes of the edited buffers are sent at once instead, so agentls
;;   does not take a buffer eglot edited for one it skipped.
(defun agentls--edit-paths (edit)
  "The files an LSP WorkspaceEdit EDIT changes."
  (let (paths)
    (seq-doseq (c (plist-get edit :documentChanges))
      (when-let ((uri (plist-get (plist-get c :textDocument) :uri)))
        (push (eglot--uri-to-path uri) paths)))
    (cl-loop for (uri _edits) on (plist-get edit :changes) by #'cddr
             do (push (eglot--uri-to-path (substring (format "%s" uri) 1)) paths))
    paths))

(defun agentls--send-changes (paths)
  "Send eglot's pending changes of the buffers visiting PATHS."
  (dolist (path paths)
    (when-let ((buf (find-buffer-visiting path)))
      (with-current-buffer buf
        (when (and (bound-and-true-p eglot--managed-mode)
                   (fboundp 'eglot--signal-textDocument/didChange))
          (eglot--signal-textDocument/didChange))))))

;; An edit of a file agentls has no buffer of (sent with version null)
;; was computed from the file on disk, and agentls sends it as one edit
;; replacing the whole text, with the sha256 of that text
;; (agentlsBaseHashes).  A buffer agentls does not manage (set up for
;; Markdown only, agentls cannot see a Go buffer) may hold unsaved changes:
;; applied there, the edit would overwrite them (and an older agentls's
;; edit by position would land on the wrong lines).  Such an edit is
;; refused, applied: false with the reason; agentls keeps it as pending
;; review and says so.
(defun agentls--buffer-hash ()
  "The sha256 of the current buffer's text as saving it would write it."
  (secure-hash 'sha256 (encode-coding-string
                        (buffer-substring-no-properties (point-min) (point-max))
                        (or buffer-file-coding-system 'utf-8-unix) t)))

(defun agentls--unseen-conflicts (server edit)
  "The files EDIT would change in buffers holding text other than its base.
They are named relative to SERVER's project.
These are the files EDIT edits with version null (computed from the disk)
whose buffer is modified and does not hold the text of the hash the server
sent (agentlsBaseHashes), or, without a hash, is modified at all."
  (let ((hashes (plist-get edit :agentlsBaseHashes))
        (root (ignore-errors (project-root (eglot--project server))))
        (unversioned nil)
        (conflicts nil))
    (seq-doseq (c (plist-get edit :documentChanges))
      (when-let ((doc (plist-get c :textDocument)))
        (unless (plist-get doc :version)
          (push (plist-get doc :uri) unversioned))))
    (cl-loop for (uri _edits) on (plist-get edit :changes) by #'cddr
             do (push (substring (format "%s" uri) 1) unversioned))
    (dolist (uri unversioned)
      (let* ((path (eglot--uri-to-path uri))
             (buf (find-buffer-visiting path))
             (hash (plist-get hashes (intern (concat ":" uri)))))
        (when (and buf (buffer-modified-p buf)
                   (not (and hash (equal hash (with-current-buffer buf (agentls--buffer-hash))))))
          (push (if root (file-relative-name path root) (abbreviate-file-name path)) conflicts))))
    (nreverse conflicts)))

;; A chat's reply streams into its document as one edit per chunk; with
;; eglot's default `eglot-confirm-server-initiated-edits' (eglot 1.9) each
;; chunk asked "Server wants to edit chat.md ... Proceed?", a dozen times
;; for one reply.  The user asked for that reply by sending the chat, and
;; the document is agentls's own, open in a buffer (undo reverts it), so
;; such edits are applied without asking; an edit of any other file asks
;; as the user's setting says.
(defvar eglot-confirm-server-initiated-edits)
(defvar eglot-confirm-server-edits)     ; eglot 1.16 and newer

(defun agentls--chat-only-p (paths)
  "Non-nil if PATHS are all chat documents that a buffer visits."
  (and paths
       (seq-every-p (lambda (path)
                      (and (string-match-p agentls--chat-file-re path)
                           (find-buffer-visiting path)))
                    paths)))

(cl-defmethod eglot-handle-request :around
  (server (method (eql workspace/applyEdit)) &rest params)
  "Apply agentls's edits so that eglot 1.9 and agentls agree on them."
  (if (not (agentls--agentls-p server))
      (apply #'cl-call-next-method server method params)
    (let* ((edit (plist-get params :edit))
           (changes (plist-get edit :documentChanges)))
      (when (seq-some (lambda (c) (member (plist-get c :kind) '("delete" "rename"))) changes)
        (jsonrpc-error "agentls: this eglot cannot delete or rename files; nothing changed"))
      (when (seq-some (lambda (c) (plist-get c :kind)) changes)
        (setq edit (plist-put (copy-sequence edit) :documentChanges
                              (vconcat (seq-remove (lambda (c) (plist-get c :kind)) changes)))
              params (plist-put (copy-sequence params) :edit edit)))
      (let ((paths (agentls--edit-paths edit))
            (conflicts (agentls--unseen-conflicts server edit)))
        (if conflicts
            (list :applied :json-false
                  :failureReason (format "%s %s unsaved changes in a buffer agentls does not manage; save %s, or revert %s, and apply the edit again"
                                         (string-join conflicts ", ")
                                         (if (cdr conflicts) "have" "has")
                                         (if (cdr conflicts) "them" "it")
                                         (if (cdr conflicts) "them" "it")))
        (prog1 (if (agentls--chat-only-p paths)
                   (let ((eglot-confirm-server-initiated-edits nil)
                         (eglot-confirm-server-edits nil))
                     (apply #'cl-call-next-method server method params))
                 (apply #'cl-call-next-method server method params))
          (agentls--send-changes paths)))))))

;;;; Setup

(defun agentls--initialization-options (_server)
  (let ((options (copy-sequence agentls-settings)))
    (plist-put options :saveDocuments t)))

(defvar agentls-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "a") #'agentls-ask)
    (define-key map (kbd "r") #'agentls-apply-reply)
    (define-key map (kbd "c") #'agentls-cancel)
    (define-key map (kbd "u") #'agentls-undo)
    (define-key map (kbd "U") #'agentls-redo)
    (define-key map (kbd "y") #'agentls-approve)
    (define-key map (kbd "n") #'agentls-deny)
    (define-key map (kbd "o") #'agentls-chat)
    (define-key map (kbd "x") #'eglot-code-actions)
    (define-key map (kbd "l") #'agentls-output)
    map)
  "Keymap of the agentls commands; bind it to a prefix, e.g. C-c a.")
(fset 'agentls-command-map agentls-command-map)

(defun agentls--mode-symbols ()
  (mapcar (lambda (m) (if (consp m) (car m) m)) agentls-modes))

;;;###autoload
(defun agentls-setup ()
  "Register agentls with eglot for `agentls-modes'.
One agentls server per project manages the buffers of all those modes.
Without the markdown-mode package, .md files open in
`agentls-markdown-mode' so that agentls can manage them.  With
`agentls-ensure', agentls starts when such a buffer opens."
  (add-to-list 'eglot-server-programs
               `(,agentls-modes . (,@agentls-program
                                   :initializationOptions agentls--initialization-options)))
  (unless (fboundp 'markdown-mode)
    (add-to-list 'auto-mode-alist '("\\.md\\'" . agentls-markdown-mode)))
  (when agentls-ensure
    (dolist (mode (agentls--mode-symbols))
      (add-hook (intern (format "%s-hook" mode)) #'eglot-ensure))))

(provide 'agentls)
;;; agentls.el ends here
