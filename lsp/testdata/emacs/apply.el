;;; apply.el --- agentls through eglot in Emacs --batch  -*- lexical-binding: t; -*-

;; Run by TestEmacsEglot after eglot and editors/emacs/agentls.el: one
;; agentls server (eglot, started as `agentls-setup' registers it) for a
;; project of two Go files and a Markdown reply; the reply, typed into its
;; buffer (not saved), is applied with `agentls-apply-reply', the Go buffers
;; change (the files on disk do not), and `agentls-undo' puts them back.
;; Prints OK and exits 0, or prints FAIL: and exits 1.

(defun agentls-test-fail (fmt &rest args)
  (princ (concat "FAIL: " (apply #'format fmt args) "\n") #'external-debugging-output)
  ;; The LSP conversation, for the test log.
  (when-let ((server (and (fboundp 'agentls--server) (agentls--server t))))
    (with-current-buffer (jsonrpc-events-buffer server)
      (princ (buffer-substring-no-properties (max (point-min) (- (point-max) 20000)) (point-max))
             #'external-debugging-output)))
  (kill-emacs 1))

(defun agentls-test-wait (what pred &optional seconds)
  "Let Emacs process the server's messages until PRED holds, or fail saying WHAT."
  (let ((deadline (+ (float-time) (or seconds 10))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (agentls-test-fail "timed out waiting for %s" what))))

(defun agentls-test-text (buf)
  (with-current-buffer buf (buffer-substring-no-properties (point-min) (point-max))))

;; The server's messages (window/showMessage), newest first.
(defvar agentls-test-messages nil)
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key message &allow-other-keys)
  (push message agentls-test-messages))

(defun agentls-test-message-p (regexp)
  (seq-some (lambda (m) (string-match-p regexp m)) agentls-test-messages))

(condition-case err
    (let* ((root (file-name-as-directory (getenv "AGENTLS_ROOT")))
           (default-directory root))
      ;; Batch Emacs cannot answer eglot's "Server wants to edit ... ?"
      ;; prompt, and has no idle time for the change timer.
      (setq case-fold-search nil          ; "Settings" is not "settings"
            eglot-confirm-server-initiated-edits nil
            eglot-sync-connect t
            eglot-send-changes-idle-time 0
            agentls-program (list (getenv "AGENTLS_BIN"))
            agentls-ensure nil)
      ;; Go buffers managed by agentls too, as a user who lists go-mode in
      ;; `agentls-modes' has them (bare Emacs has no go-mode).
      (define-derived-mode agentls-test-go-mode prog-mode "Go")
      (add-to-list 'auto-mode-alist '("\\.go\\'" . agentls-test-go-mode))
      (setq agentls-modes (append agentls-modes '((agentls-test-go-mode :language-id "go"))))
      (agentls-setup)

      (let ((a (find-file-noselect (expand-file-name "a.go" root)))
            (b (find-file-noselect (expand-file-name "b.go" root)))
            (reply (find-file-noselect (expand-file-name "reply.md" root))))
        (with-current-buffer reply
          (unless (eq major-mode 'agentls-markdown-mode)
            (agentls-test-fail "reply.md is in %s" major-mode))
          (apply #'eglot (eglot--guess-contact))
          (unless (agentls--server t) (agentls-test-fail "agentls did not start")))
        (dolist (buf (list a b reply))
          (with-current-buffer buf
            (unless (and (bound-and-true-p eglot--managed-mode) (eq (eglot-current-server) (agentls--server)))
              (agentls-test-fail "%s is not managed by agentls" (buffer-name)))))

        ;; The reply arrives by typing (yanking) it into the buffer: the
        ;; server knows it only from didChange, which agentls-apply-reply
        ;; sends first.
        (with-current-buffer reply
          (goto-char (point-max))
          (insert (getenv "AGENTLS_REPLY"))
          (agentls-apply-reply))
        (agentls-test-wait "the edit"
                           (lambda () (and (string-match-p "type Settings struct{}" (agentls-test-text a))
                                           (string-match-p "var c Settings" (agentls-test-text b)))))
        (with-temp-buffer
          (insert-file-contents (expand-file-name "a.go" root))
          (unless (string-match-p "type Config struct{}" (buffer-string))
            (agentls-test-fail "a.go on disk changed: %s" (buffer-string))))
        (unless (buffer-modified-p a) (agentls-test-fail "a.go is not modified"))
        ;; The server says so once it has checked the buffers' new text.
        (agentls-test-wait "the server's message" (lambda () (agentls-test-message-p "applied .* in a\\.go, b\\.go")))
        (when (agentls-test-message-p "skipped")
          (agentls-test-fail "the server took an edited buffer for a skipped one: %S" agentls-test-messages))

        ;; agentls-undo reverts the agent edit in both buffers.
        (with-current-buffer a
          (agentls-undo))
        (agentls-test-wait "the undo"
                           (lambda () (and (string-match-p "type Config struct{}" (agentls-test-text a))
                                           (string-match-p "var c Config" (agentls-test-text b)))))
        (when (or (string-match-p "Settings" (agentls-test-text a))
                  (string-match-p "Settings" (agentls-test-text b)))
          (agentls-test-fail "undo left: a.go=%S b.go=%S" (agentls-test-text a) (agentls-test-text b)))

        ;; C-c a x (eglot-code-actions) on a word of the reply: eglot sends
        ;; the sexp at point as the range, which holds no whole block; the
        ;; reply's edits are offered all the same.
        (with-current-buffer reply
          (goto-char (point-min))
          (search-forward "type Settings")
          (backward-char 3)
          (let* ((bounds (eglot--region-bounds))
                 (titles (mapcar (lambda (a) (plist-get a :title))
                                 (eglot-code-actions (car bounds) (cadr bounds)))))
            (unless (member "Apply agent reply (1 edit in 2 files)" titles)
              (agentls-test-fail "code actions on a word of the reply: %S" titles))))

        ;; A reply that creates a file, from a buffer agentls does not
        ;; manage (sent as text): eglot 1.9 cannot take the CreateFile that
        ;; agentls sends; agentls.el drops it and eglot opens a buffer for
        ;; the new file.  eglot asks before it edits a file no buffer visits.
        (let (asked)
          (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (push prompt asked) t)))
            (with-temp-buffer
              (insert "```save c.go\npackage p\n\nfunc New() {}\n```\n")
              (agentls-apply-reply))
            (agentls-test-wait "c.go" (lambda () (find-buffer-visiting (expand-file-name "c.go" root)))))
          (unless (and asked (string-match-p "c\\.go" (car asked)))
            (agentls-test-fail "eglot did not ask before creating c.go: %S" asked)))
        (let ((c (find-buffer-visiting (expand-file-name "c.go" root))))
          (unless (equal (agentls-test-text c) "package p\n\nfunc New() {}\n")
            (agentls-test-fail "c.go buffer: %S" (agentls-test-text c)))
          (when (file-exists-p (expand-file-name "c.go" root))
            (agentls-test-fail "c.go was written to disk")))

        ;; A refused command is an error in Emacs, not a silent no-op.
        (when (ignore-errors (agentls-approve) t)
          (agentls-test-fail "agentls-approve with nothing to approve did not fail"))

        ;; With no model configured, asking fails with the server's reason
        ;; and what to set in Emacs, as a user-error: not the raw
        ;; (jsonrpc-error "request id=N failed:" (jsonrpc-error-code . -32602) ...).
        (with-current-buffer reply
          (condition-case err
              (progn (agentls-ask "rename Config")
                     (agentls-test-fail "agentls-ask with no model did not fail"))
            (user-error
             (let ((msg (error-message-string err)))
               (unless (and (string-match-p "\\`agentls: no model configured" msg)
                            (string-match-p "agentls-settings '(:model" msg)
                            (string-match-p "AGENTLS_MODEL" msg))
                 (agentls-test-fail "the missing model reads: %s" msg))
               (when (string-match-p "jsonrpc\\|-32602\\|request id" msg)
                 (agentls-test-fail "the missing model reads as a raw error: %s" msg))))))

        ;; An approval message names the keys that answer it; with none
        ;; bound (this session binds no prefix), the commands to M-x.
        (let ((msg (agentls--with-keys "agentls: agent turn 2 asks to run `touch x` (not on the allowlist): approve or deny it with the code actions on reply.md:1, or with the commands agentls.approve / agentls.deny {\"request\": 7}")))
          (unless (string-match-p "or with M-x agentls-approve / M-x agentls-deny (this is request 7: C-u 7 M-x agentls-approve" msg)
            (agentls-test-fail "the approval message reads: %s" msg)))
        ;; One that lists several lines names the digest of its listing,
        ;; which the answer carries.
        (let ((msg (agentls--with-keys "agentls: agent turn 2 asks to run `a … (+1 lines)` (not on the allowlist):\n1│ a\n2│ b\napprove or deny it with the commands agentls.approve / agentls.deny {\"request\": 8, \"digest\": \"0123456789abcdef\"}")))
          (unless (string-match-p "\n2│ b\napprove or deny it with M-x agentls-approve / M-x agentls-deny (this is request 8:" msg)
            (agentls-test-fail "the listed approval message reads: %s" msg))
          (unless (equal (agentls--approval-args nil :always 8) '(:request 8 :digest "0123456789abcdef"))
            (agentls-test-fail "the answer to request 8 carries %S" (agentls--approval-args nil :always 8)))
          (unless (equal (agentls--approval-args '(4) :always 8) '(:request 8 :digest "0123456789abcdef" :always t))
            (agentls-test-fail "C-u's answer to request 8 carries %S" (agentls--approval-args '(4) :always 8)))
          ;; Answered elsewhere: the key falls back to the oldest waiting
          ;; (here none), forgetting request 8.
          (when (ignore-errors (agentls-approve) t)
            (agentls-test-fail "agentls-approve with nothing to approve did not fail"))
          (when agentls--approval-digests
            (agentls-test-fail "a request answered elsewhere is still remembered: %S" agentls--approval-digests)))

        (princ "OK\n")
        (ignore-errors (eglot-shutdown (agentls--server)))
        (kill-emacs 0)))
  (error (agentls-test-fail "%s" (error-message-string err))))

;;; apply.el ends here
