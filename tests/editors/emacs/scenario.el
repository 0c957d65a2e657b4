;;; scenario.el --- Emacs + eglot for tests/editors/test_editor_scenario.py  -*- lexical-binding: t -*-

;; Plays the shared scenario (tests/editors/scenario/expected.json) with eglot, in batch mode
;; (`emacs --batch -l scenario.el`; not -Q, which skips the site start-up that puts Debian's
;; eglot on the load path).  Batch mode runs eglot's event loop: jsonrpc's process filters run
;; while Emacs waits, and file-notify's events (eglot's file watching) are handled by
;; `read-event' with a timeout, though not by `accept-process-output' or `sit-for'; so the
;; waiting is done with `read-event', and no terminal is needed.  Writes down the errors and
;; warnings of each file after each step, then runs every code lens of the files it is told to.
;;
;; Everything comes from ABL_EMACS_SCENARIO, the JSON object the Neovim driver reads (see
;; nvim/scenario.lua).  What a file "shows" is what the server last published for it to eglot:
;; for a visited file that is what Flymake draws; eglot 1.9 (Debian 12) drops a file that no
;; buffer visits, so for those it is what reached eglot (newer eglot on Emacs 29 lists them in
;; `flymake-show-project-diagnostics').  eglot has no code lens support: the lenses the server
;; offers are run as a user would run them, with `eglot-execute-command'.

(require 'json)
(require 'subr-x)
(package-initialize) ; Debian installs eglot as an ELPA package
(require 'eglot)

(defconst abl-scenario-first-step-wait 30 "Seconds: server start-up and the first analysis.")
(defconst abl-scenario-step-wait 10 "Seconds for each later step and each lens.")

(defvar abl-scenario-spec nil)
(defvar abl-scenario-result (list (cons 'steps nil) (cons 'lenses nil)))
(defvar abl-scenario-published (make-hash-table :test #'equal)
  "File name -> the errors and warnings the server last published for it.")

(define-derived-mode abl-agent-mode prog-mode "ABL"
  "Agent Blueprint Language files."
  (setq-local comment-start "# "))
(add-to-list 'auto-mode-alist '("\\.abl\\'" . abl-agent-mode))

(defun abl-scenario-get (key) (alist-get key abl-scenario-spec))

(defun abl-scenario-write (&optional error-message)
  (when error-message
    (push (cons 'error error-message) abl-scenario-result))
  (with-temp-file (abl-scenario-get 'result)
    (insert (json-encode
             `((steps . ,(vconcat (reverse (alist-get 'steps abl-scenario-result))))
               (lenses . ,(vconcat (reverse (alist-get 'lenses abl-scenario-result))))
               ,@(when error-message `((error . ,error-message))))))))

(defun abl-scenario-fail (message)
  (message "abl-emacs: %s" message)
  (abl-scenario-write message)
  (kill-emacs 1))

(defun abl-scenario-path (name) (expand-file-name name (abl-scenario-get 'root)))

(defun abl-scenario-record (_server _method &rest args)
  "Note what a publishDiagnostics carried, for the file it names."
  (let ((file (file-name-nondirectory (eglot--uri-to-path (plist-get args :uri))))
        (items nil))
    (seq-doseq (d (plist-get args :diagnostics))
      (let ((severity (or (plist-get d :severity) 1)))
        (when (<= severity 2)
          (push `((line . ,(1+ (plist-get (plist-get (plist-get d :range) :start) :line)))
                  (code . ,(plist-get d :code))
                  (severity . ,(if (= severity 1) "error" "warning")))
                items))))
    (puthash file items abl-scenario-published)))

(advice-add 'eglot-handle-notification :before
            (lambda (server method &rest args)
              (when (eq method 'textDocument/publishDiagnostics)
                (apply #'abl-scenario-record server method args))))

(defun abl-scenario-shown ()
  "File name -> its errors and warnings, sorted; files with none left out."
  (let (out)
    (dolist (name (append (abl-scenario-get 'files) nil))
      (let ((items (sort (copy-sequence (gethash name abl-scenario-published))
                         (lambda (a b) (or (< (alist-get 'line a) (alist-get 'line b))
                                           (and (= (alist-get 'line a) (alist-get 'line b))
                                                (string< (format "%s" (alist-get 'code a))
                                                         (format "%s" (alist-get 'code b)))))))))
        (when items (push (cons (intern name) (vconcat items)) out))))
    (nreverse out)))

(defun abl-scenario-expected (step)
  (let (out)
    (dolist (entry (alist-get 'expect step))
      (when (> (length (cdr entry)) 0)
        (push entry out)))
    (nreverse out)))

(defun abl-scenario-same (shown expected)
  (let ((key (lambda (alist) (sort (mapcar (lambda (e) (format "%s" e)) alist) #'string<))))
    (equal (funcall key shown) (funcall key expected))))

(defun abl-scenario-wait (seconds done)
  "Let processes and file events run until DONE returns non-nil or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall done)) (< (float-time) deadline))
      (read-event nil nil 0.05))
    (funcall done)))

(defun abl-scenario-visit (name)
  (let ((buffer (find-file-noselect (abl-scenario-path name))))
    (with-current-buffer buffer
      (unless (eglot-current-server)
        (let ((eglot-sync-connect t))
          (eglot '(abl-agent-mode) (eglot--current-project) 'eglot-lsp-server
                 (abl-scenario-get 'server) "abl-agent"))))
    (set-buffer buffer)
    buffer))

(defun abl-scenario-play (step seconds)
  (dolist (name (append (alist-get 'open step) nil))
    (abl-scenario-visit name))
  (when-let ((append-step (alist-get 'append step)))
    (with-current-buffer (or (find-buffer-visiting (abl-scenario-path (alist-get 'file append-step)))
                             (abl-scenario-fail "cannot append: the file is not visited"))
      (goto-char (point-max))
      (dolist (line (append (alist-get 'lines append-step) nil))
        (insert line "\n"))))
  (when-let ((save (alist-get 'save step)))
    (with-current-buffer (find-buffer-visiting (abl-scenario-path save))
      (save-buffer)))
  (when-let ((doomed (alist-get 'delete step)))
    (delete-file (abl-scenario-path doomed)))
  (let ((expected (abl-scenario-expected step))
        (started (float-time)))
    (abl-scenario-wait seconds (lambda () (abl-scenario-same (abl-scenario-shown) expected)))
    (push `((name . ,(alist-get 'name step))
            (diagnostics . ,(abl-scenario-shown))
            (waited_ms . ,(round (* 1000 (- (float-time) started)))))
          (alist-get 'steps abl-scenario-result))))

(defun abl-scenario-run-lenses (name)
  (let* ((buffer (abl-scenario-visit name))
         (server (with-current-buffer buffer (eglot-current-server)))
         (lenses (with-current-buffer buffer
                   (jsonrpc-request server :textDocument/codeLens
                                    `(:textDocument ,(eglot--TextDocumentIdentifier))))))
    (seq-doseq (lens lenses)
      (let* ((command (plist-get lens :command))
             (problem (condition-case err
                          (progn (with-current-buffer buffer
                                   (eglot-execute-command server (plist-get command :command)
                                                          (plist-get command :arguments)))
                                 nil)
                        (error (error-message-string err)))))
        (push `((file . ,name)
                (line . ,(1+ (plist-get (plist-get (plist-get lens :range) :start) :line)))
                (title . ,(plist-get command :title))
                (command . ,(plist-get command :command))
                (ran . ,(if problem :json-false t))
                (error . ,problem))
              (alist-get 'lenses abl-scenario-result))))))

(defun abl-scenario-main ()
  (let ((raw (getenv "ABL_EMACS_SCENARIO")))
    (unless (and raw (> (length raw) 0))
      (message "abl-emacs: ABL_EMACS_SCENARIO is not set")
      (kill-emacs 2))
    (setq abl-scenario-spec (let ((json-array-type 'vector)) (json-read-from-string raw))))
  ;; The server command as a list of strings, as eglot wants its contact.
  (setf (alist-get 'server abl-scenario-spec) (append (abl-scenario-get 'server) nil))
  (setq jsonrpc-default-request-timeout abl-scenario-step-wait
        make-backup-files nil create-lockfiles nil auto-save-default nil)
  (let ((first t))
    (seq-doseq (step (abl-scenario-get 'steps))
      (abl-scenario-play step (if first abl-scenario-first-step-wait abl-scenario-step-wait))
      (setq first nil)))
  (seq-doseq (name (abl-scenario-get 'lenses))
    (abl-scenario-run-lenses name))
  (abl-scenario-write)
  (ignore-errors (eglot-shutdown (eglot-current-server)))
  (kill-emacs 0))

(condition-case err
    (abl-scenario-main)
  (error (abl-scenario-fail (format "error in the test configuration: %s" (error-message-string err)))))

;;; scenario.el ends here
